package dev.tandem.world.transport;

import dev.tandem.kv.KvRows;
import dev.tandem.world.transport.KvWire.Greeting;
import dev.tandem.world.transport.KvWire.Header;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/** A sender's connection to one KV receiver; used by one transfer at a time, then pooled. */
final class KvConnection implements AutoCloseable {
  private final SocketChannel ch;
  /** Reads go through the socket's stream so that SO_TIMEOUT bounds every wait for the receiver. */
  private final ReadableByteChannel in;
  private final InetSocketAddress address;
  private final Greeting greeting;
  private final ByteBuffer buffer = KvPayload.newBuffer();
  private long sequence;

  private KvConnection(SocketChannel ch, ReadableByteChannel in, InetSocketAddress address, Greeting greeting) {
    this.ch = ch;
    this.in = in;
    this.address = address;
    this.greeting = greeting;
  }

  static KvConnection open(InetSocketAddress address, int connectTimeoutMs, int readTimeoutMs) throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.socket().connect(address, connectTimeoutMs);
      ch.socket().setSoTimeout(readTimeoutMs);
      ReadableByteChannel in = Channels.newChannel(ch.socket().getInputStream());
      return new KvConnection(ch, in, address, KvWire.readGreeting(in));
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  InetSocketAddress address() {
    return address;
  }

  Greeting greeting() {
    return greeting;
  }

  /** Sends the header; returns the proof that the trailer must chain to, or throws {@link Refused}. */
  byte[] sendHeader(WorldSecret secret, int destPe, String requestId, String fingerprint, int[] slots, KvRows rows)
      throws IOException, Refused {
    Header header = new Header(sequence++, destPe, requestId, fingerprint, rows.keys().length, rows.kvDim(), slots);
    byte[] body = header.encodeBody();
    byte[] proof = secret.proof(KvWire.HEADER_PURPOSE, greeting.nonce(), body);
    KvWire.writeHeader(ch, body, proof);
    String refusal = KvWire.readVerdict(in);
    if (refusal != null) {
      throw new Refused(refusal);
    }
    return proof;
  }

  /** Streams the rows and trailer and waits for the receiver to store them. */
  void sendRows(WorldSecret secret, byte[] headerProof, KvRows rows, CrcTamper tamper) throws IOException, Refused {
    int crc = KvPayload.write(ch, rows, buffer);
    int sent = tamper.apply(crc);
    byte[] proof = secret.proof(KvWire.TRAILER_PURPOSE, greeting.nonce(), headerProof, KvWire.crcBytes(sent));
    KvWire.writeTrailer(ch, sent, proof);
    String refusal = KvWire.readVerdict(in);
    if (refusal != null) {
      throw new Refused(refusal);
    }
  }

  boolean isOpen() {
    return ch.isOpen();
  }

  @Override
  public void close() {
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing a socket that is already broken
    }
  }

  /** The receiver said no; its reason is the message. */
  static final class Refused extends Exception {
    Refused(String reason) {
      super(reason);
    }
  }

  /** Test hook: alters the checksum put in the trailer, to provoke the receiver's check. */
  interface CrcTamper {
    CrcTamper NONE = crc -> crc;

    int apply(int crc);
  }
}
