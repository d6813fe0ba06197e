package dev.tandem.world.transport;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * The builtin engines' KV transfer protocol on an engine's KV port. Everything little-endian.
 *
 * <pre>
 * receiver greeting, once per connection (R to S):
 *   u32 GREETING_MAGIC  u16 VERSION  u16 0  u32 pe_start  u32 num_pes  16 bytes nonce
 * per transfer:
 *   S to R  header:  u32 HEADER_MAGIC  u16 VERSION  u16 flags=0  u32 body_length
 *                    body: u64 sequence  u32 dest_pe  u16+utf8 request_id  u16+utf8 model_fingerprint
 *                          u32 num_layers  u32 kv_dim  u32 num_tokens  num_tokens x i32 slots
 *                    32 bytes HMAC(secret, "tandem-kv-header", nonce, body)
 *   R to S  verdict: u8 status (0 accepted, 1 refused)  u32+utf8 reason
 *   S to R  payload: for each layer: K rows, then V rows (num_tokens x kv_dim f32 each, position-major)
 *   S to R  trailer: u32 crc32c(payload)  32 bytes HMAC(secret, "tandem-kv-trailer", nonce, header HMAC, crc)
 *   R to S  verdict: written only after the receiving engine stored the rows (or refused them)
 * </pre>
 *
 * The checksum travels in a trailer, not the header, so that the sender streams the payload in a
 * single pass. The per-connection sequence number makes every proof unique: a recorded transfer
 * cannot be replayed. After a refusal both sides close the connection.
 */
public final class KvWire {
  public static final int GREETING_MAGIC = 0x52564B54; // "TKVR" as little-endian bytes
  public static final int HEADER_MAGIC = 0x54564B54; // "TKVT"
  public static final short VERSION = 1;
  public static final int GREETING_BYTES = 4 + 2 + 2 + 4 + 4 + 16;
  static final String HEADER_PURPOSE = "tandem-kv-header";
  static final String TRAILER_PURPOSE = "tandem-kv-trailer";
  static final int MAX_BODY_BYTES = 64 << 20;
  static final int MAX_TEXT_BYTES = 4096;
  static final byte ACCEPTED = 0;
  static final byte REFUSED = 1;

  private KvWire() {}

  /** What the receiver says first: which PEs it holds and the nonce that proofs must sign. */
  public record Greeting(int peStart, int numPes, byte[] nonce) {
    public boolean holds(int pe) {
      return pe >= peStart && pe < peStart + numPes;
    }
  }

  static void writeGreeting(WritableByteChannel ch, Greeting g) throws IOException {
    ByteBuffer b = le(GREETING_BYTES).putInt(GREETING_MAGIC).putShort(VERSION).putShort((short) 0)
        .putInt(g.peStart()).putInt(g.numPes()).put(g.nonce());
    writeFully(ch, b.flip());
  }

  static Greeting readGreeting(ReadableByteChannel ch) throws IOException {
    ByteBuffer b = readFully(ch, le(GREETING_BYTES));
    int magic = b.getInt();
    if (magic != GREETING_MAGIC) {
      throw new IOException("the peer is not a Tandem KV receiver (greeting magic 0x" + Integer.toHexString(magic) + ")");
    }
    short version = b.getShort();
    if (version != VERSION) {
      throw new IOException("the KV receiver speaks protocol version " + version + ", this engine " + VERSION);
    }
    b.getShort();
    int peStart = b.getInt();
    int numPes = b.getInt();
    byte[] nonce = new byte[16];
    b.get(nonce);
    return new Greeting(peStart, numPes, nonce);
  }

  /** The authenticated part of a transfer header. */
  public record Header(long sequence, int destPe, String requestId, String fingerprint, int numLayers, int kvDim,
      int[] slots) {
    int numTokens() {
      return slots.length;
    }

    /** Bytes of K and V rows that follow the header. */
    long payloadBytes() {
      return 2L * numLayers * slots.length * kvDim * Float.BYTES;
    }

    byte[] encodeBody() {
      byte[] id = requestId.getBytes(StandardCharsets.UTF_8);
      byte[] fp = fingerprint.getBytes(StandardCharsets.UTF_8);
      if (id.length > MAX_TEXT_BYTES || fp.length > MAX_TEXT_BYTES) {
        throw new IllegalArgumentException("request id or fingerprint longer than " + MAX_TEXT_BYTES + " bytes");
      }
      ByteBuffer b = le(8 + 4 + 2 + id.length + 2 + fp.length + 12 + 4 * slots.length);
      b.putLong(sequence).putInt(destPe).putShort((short) id.length).put(id).putShort((short) fp.length).put(fp)
          .putInt(numLayers).putInt(kvDim).putInt(slots.length);
      b.asIntBuffer().put(slots);
      return b.array();
    }

    static Header decodeBody(byte[] body) throws IOException {
      try {
        ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        long sequence = b.getLong();
        int destPe = b.getInt();
        String requestId = text(b);
        String fingerprint = text(b);
        int numLayers = b.getInt();
        int kvDim = b.getInt();
        int numTokens = b.getInt();
        if (numTokens < 0 || (long) numTokens * 4 != b.remaining()) {
          throw new IOException("header claims " + numTokens + " slots but carries " + b.remaining() / 4);
        }
        int[] slots = new int[numTokens];
        b.asIntBuffer().get(slots);
        return new Header(sequence, destPe, requestId, fingerprint, numLayers, kvDim, slots);
      } catch (java.nio.BufferUnderflowException e) {
        throw new IOException("truncated KV transfer header", e);
      }
    }

    private static String text(ByteBuffer b) {
      int n = Short.toUnsignedInt(b.getShort());
      byte[] bytes = new byte[n];
      b.get(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** Header frame: magic, version, flags, body length, body, proof. */
  static void writeHeader(WritableByteChannel ch, byte[] body, byte[] proof) throws IOException {
    ByteBuffer b = le(12 + body.length + proof.length).putInt(HEADER_MAGIC).putShort(VERSION).putShort((short) 0)
        .putInt(body.length).put(body).put(proof);
    writeFully(ch, b.flip());
  }

  /** Reads a header frame; returns {body, proof}. */
  static byte[][] readHeader(ReadableByteChannel ch) throws IOException {
    ByteBuffer fixed = readFully(ch, le(12));
    int magic = fixed.getInt();
    if (magic != HEADER_MAGIC) {
      throw new IOException("not a Tandem KV transfer (header magic 0x" + Integer.toHexString(magic) + ")");
    }
    short version = fixed.getShort();
    if (version != VERSION) {
      throw new IOException("KV transfer protocol version " + version + " (this engine speaks " + VERSION + ")");
    }
    fixed.getShort();
    int bodyLength = fixed.getInt();
    if (bodyLength < 0 || bodyLength > MAX_BODY_BYTES) {
      throw new IOException("KV transfer header of " + bodyLength + " bytes is out of bounds");
    }
    ByteBuffer rest = readFully(ch, le(bodyLength + WorldSecret.PROOF_BYTES));
    byte[] body = new byte[bodyLength];
    byte[] proof = new byte[WorldSecret.PROOF_BYTES];
    rest.get(body).get(proof);
    return new byte[][] {body, proof};
  }

  static void writeTrailer(WritableByteChannel ch, int crc, byte[] proof) throws IOException {
    writeFully(ch, le(4 + proof.length).putInt(crc).put(proof).flip());
  }

  static byte[] crcBytes(int crc) {
    return le(4).putInt(crc).array();
  }

  /** Reads a trailer; returns the crc in the first 4 bytes and the proof after. */
  static ByteBuffer readTrailer(ReadableByteChannel ch) throws IOException {
    return readFully(ch, le(4 + WorldSecret.PROOF_BYTES));
  }

  static void writeVerdict(WritableByteChannel ch, String refusal) throws IOException {
    byte[] text = refusal == null ? new byte[0] : refusal.getBytes(StandardCharsets.UTF_8);
    if (text.length > MAX_TEXT_BYTES) {
      text = java.util.Arrays.copyOf(text, MAX_TEXT_BYTES);
    }
    writeFully(ch, le(5 + text.length).put(refusal == null ? ACCEPTED : REFUSED).putInt(text.length).put(text).flip());
  }

  /** Null when accepted, the receiver's reason otherwise. */
  static String readVerdict(ReadableByteChannel ch) throws IOException {
    ByteBuffer fixed = readFully(ch, le(5));
    byte status = fixed.get();
    int n = fixed.getInt();
    if (n < 0 || n > MAX_TEXT_BYTES) {
      throw new IOException("malformed verdict from the KV receiver");
    }
    String text = new String(readFully(ch, le(n)).array(), StandardCharsets.UTF_8);
    if (status == ACCEPTED) {
      return null;
    }
    return text.isEmpty() ? "refused without a reason" : text;
  }

  static ByteBuffer le(int capacity) {
    return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
  }

  static void writeFully(WritableByteChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  /** Fills {@code b} from the channel and flips it for reading. */
  static ByteBuffer readFully(ReadableByteChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new EOFException("the peer closed the connection");
      }
    }
    return b.flip();
  }
}
