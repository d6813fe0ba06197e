package dev.tandem.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.EncodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import java.nio.charset.StandardCharsets;

/**
 * JSON of the request path with Jackson's streaming codec. Vert.x's {@code JsonObject.encode()},
 * {@code toBuffer()} and body decoding use its databind codec whenever jackson-databind is on the
 * class path (it is, for other libraries), which goes through an ObjectMapper's serializer lookup
 * for every value; the router encodes an engine body, decodes a client body and encodes an answer
 * per request, so those go through the streaming codec (same output: Vert.x's own value encoding).
 * Encoding first tries {@link JsonBytes}, which writes the plain value types straight to bytes
 * exactly as the codec does, and parsing {@link JsonTree}, which reads as the codec reads; both
 * leave anything else (and anything malformed, for the codec's error message) to the codec.
 */
public final class FastJson {

  private static final JacksonCodec CODEC = new JacksonCodec();

  private FastJson() {}

  public static Buffer toBuffer(JsonObject json) {
    JsonBytes fast = JsonBytes.of(json);
    if (fast != null) {
      return BufferInternal.buffer(Unpooled.wrappedBuffer(fast.bytes(), 0, fast.length()));
    }
    return jackson(json);
  }

  /** Appends {@code json}'s encoding to {@code out} (without an intermediate buffer). */
  public static Buffer appendTo(Buffer out, JsonObject json) {
    return appendPlain(out, json) ? out : out.appendBuffer(jackson(json));
  }

  /**
   * Appends {@code json} when it holds only the plain value types {@link JsonBytes} writes (and
   * says true); appends nothing and says false otherwise.
   */
  public static boolean appendPlain(Buffer out, JsonObject json) {
    JsonBytes fast = JsonBytes.of(json);
    if (fast == null) {
      return false;
    }
    out.appendBytes(fast.bytes(), 0, fast.length());
    return true;
  }

  private static Buffer jackson(JsonObject json) {
    try {
      return CODEC.toBuffer(json, false);
    } catch (EncodeException notPlainJson) {
      return json.toBuffer(); // a value only databind knows how to write
    }
  }

  public static String encode(JsonObject json) {
    JsonBytes fast = JsonBytes.of(json);
    if (fast != null) {
      return new String(fast.bytes(), 0, fast.length(), StandardCharsets.UTF_8);
    }
    try {
      return CODEC.toString(json, false);
    } catch (EncodeException notPlainJson) {
      return json.encode();
    }
  }

  /**
   * The body as a JSON object. (The codec maps a JSON object to a JsonObject only when asked for
   * {@code Object}: asked for {@code JsonObject} it throws on every body.)
   *
   * @throws DecodeException when it is not one
   */
  public static JsonObject parseObject(Buffer body) {
    ByteBuf bytes = ((BufferInternal) body).getByteBuf(); // shares the body's bytes
    if (bytes.hasArray()) {
      JsonObject fast = JsonTree.object(bytes.array(), bytes.arrayOffset() + bytes.readerIndex(),
          bytes.readableBytes());
      if (fast != null) {
        return fast;
      }
    }
    if (CODEC.fromBuffer(body, Object.class) instanceof JsonObject object) {
      return object;
    }
    throw new DecodeException("not a JSON object");
  }
}
