package dev.tandem.world.transport;

import dev.tandem.kv.KvTransferException;
import dev.tandem.world.transport.KvReceiver.ReceiverPolicy;
import dev.tandem.world.transport.KvWire.Greeting;
import dev.tandem.world.transport.KvWire.Header;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sender's connection to a KV receiver: greeting, then transfers until the sender closes or a
 * transfer is refused. Every check happens before the engine's target sees any row, so a refused
 * or broken transfer writes nothing.
 */
final class KvReceiverSession {
  private static final Logger LOG = LoggerFactory.getLogger(KvReceiverSession.class);

  private final SocketChannel ch;
  private final ReceiverPolicy policy;
  private final byte[] nonce = WorldSecret.nonce();
  private final ByteBuffer buffer = KvPayload.newBuffer();
  private long sequence;

  KvReceiverSession(SocketChannel ch, ReceiverPolicy policy) {
    this.ch = ch;
    this.policy = policy;
  }

  void run() throws IOException {
    KvWire.writeGreeting(ch, new Greeting(policy.peStart(), policy.numPes(), nonce));
    while (true) {
      byte[][] frame;
      try {
        frame = KvWire.readHeader(ch);
      } catch (EOFException e) {
        return; // sender closed an idle connection
      }
      if (!transfer(frame[0], frame[1])) {
        return;
      }
    }
  }

  /** One transfer; false when it was refused (the connection then closes). */
  private boolean transfer(byte[] body, byte[] headerProof) throws IOException {
    if (!policy.secret().verify(headerProof, KvWire.HEADER_PURPOSE, nonce, body)) {
      return reject("wrong world secret: the sender does not belong to this engine's KV world", null);
    }
    Header h = Header.decodeBody(body);
    String problem = checkHeader(h);
    if (problem != null) {
      return reject(problem, h);
    }
    sequence++;
    KvWire.writeVerdict(ch, null);
    KvPayload.Received received = KvPayload.read(ch, h.numLayers(), h.numTokens(), h.kvDim(), buffer);
    ByteBuffer trailer = KvWire.readTrailer(ch);
    int claimedCrc = trailer.getInt();
    byte[] trailerProof = new byte[WorldSecret.PROOF_BYTES];
    trailer.get(trailerProof);
    if (!policy.secret().verify(trailerProof, KvWire.TRAILER_PURPOSE, nonce, headerProof,
        KvWire.crcBytes(claimedCrc))) {
      return reject("wrong world secret on the transfer's trailer", h);
    }
    if (claimedCrc != received.crc()) {
      return reject(String.format("checksum mismatch: the KV rows were damaged in transit (crc32c sent %08x,"
          + " received %08x); nothing was written", claimedCrc, received.crc()), h);
    }
    try {
      policy.target().accept(h.requestId(), h.slots(), received.rows());
    } catch (KvTransferException e) {
      return refuse(e.getMessage(), h); // the engine refused it and counted that itself
    } catch (RuntimeException e) {
      LOG.error("the engine failed to store KV rows of request {}", h.requestId(), e);
      return reject("the receiving engine failed to store the rows: " + e, h);
    }
    KvWire.writeVerdict(ch, null);
    LOG.debug("stored {} KV rows x {} layers for request {}", h.numTokens(), h.numLayers(), h.requestId());
    return true;
  }

  private String checkHeader(Header h) {
    if (h.sequence() != sequence) {
      return "out-of-order transfer " + h.sequence() + " (expected " + sequence + "): replayed or duplicated";
    }
    int last = policy.peStart() + policy.numPes() - 1;
    if (h.destPe() < policy.peStart() || h.destPe() > last) {
      return "PE " + h.destPe() + " is not on this engine (it holds PEs " + policy.peStart() + ".." + last
          + "): the sender's PE table is stale";
    }
    if (!h.fingerprint().equals(policy.fingerprint())) {
      return "model mismatch: the sender's model fingerprint " + shorten(h.fingerprint())
          + " differs from this engine's " + shorten(policy.fingerprint())
          + "; prefill and decode engines must serve the same model (config and weights)";
    }
    if (h.numLayers() < 1 || h.kvDim() < 1) {
      return "bad KV shape: " + h.numLayers() + " layers, kvDim " + h.kvDim();
    }
    if ((long) h.numTokens() * h.kvDim() > Integer.MAX_VALUE - 8) {
      return "too many rows in one transfer: " + h.numTokens() + " tokens x kvDim " + h.kvDim();
    }
    if (h.payloadBytes() > policy.maxPayloadBytes()) {
      return "a transfer of " + (h.payloadBytes() >> 20) + " MiB exceeds this engine's limit of "
          + (policy.maxPayloadBytes() >> 20) + " MiB";
    }
    for (int i = 0; i < h.slots().length; i++) {
      if (h.slots()[i] < -1) {
        return "slot " + h.slots()[i] + " at index " + i + " is negative";
      }
    }
    return null;
  }

  /** Refuses a transfer the engine has not seen: tells the engine, then the sender. */
  private boolean reject(String reason, Header h) throws IOException {
    try {
      policy.target().refused(h == null ? null : h.requestId(), reason);
    } catch (RuntimeException e) {
      LOG.warn("the engine failed to note a refused KV transfer: {}", e.toString());
    }
    return refuse(reason, h);
  }

  private boolean refuse(String reason, Header h) throws IOException {
    LOG.warn("refused KV transfer{} from {}: {}", h == null ? "" : " for request " + h.requestId(),
        ch.getRemoteAddress(), reason);
    KvWire.writeVerdict(ch, reason);
    return false;
  }

  private static String shorten(String fingerprint) {
    return fingerprint.length() > 16 ? fingerprint.substring(0, 16) + "…" : fingerprint;
  }
}
