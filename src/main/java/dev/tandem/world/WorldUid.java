package dev.tandem.world;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The builtin engines' world uid, in NVSHMEM's shape so that it travels in
 * {@code MLC_NVSHMEM_INIT_CONFIG_JSON_STR} unchanged: 125 ints, element 0 a version, then 124
 * signed bytes.
 *
 * <p>Version: {@link #VERSION} = {@code 0x54414E44} (1413566020, the ASCII bytes "TAND"). NVSHMEM
 * writes {@code (1 << 16) + sizeof(nvshmemx_uniqueid_t)} = 65664 there, so the two kinds of uid
 * can never be mistaken for each other.
 *
 * <p>Byte layout of the 124 bytes (elements 1..124):
 *
 * <pre>
 *   0..31   secret: 32 bytes from SecureRandom (the key of every HMAC proof in the world)
 *   32      address family of the world root: 4 (IPv4) or 6 (IPv6)
 *   33..34  root port, big-endian
 *   35..50  root address: 4 bytes (IPv4, then 12 zero bytes) or 16 bytes (IPv6)
 *   51..123 reserved, zero
 * </pre>
 */
public final class WorldUid {
  /** The ASCII bytes "TAND"; NVSHMEM never uses it. */
  public static final int VERSION = 0x54414E44;
  /** What NVSHMEM puts in element 0: {@code NVSHMEMX_UNIQUEID_INITIALIZER}'s version. */
  public static final int NVSHMEM_VERSION = (1 << 16) + 128;
  /** 1 version + 124 bytes, as TVM's {@code init_nvshmem_uid}. */
  public static final int LENGTH = 125;
  public static final int BYTES = 124;
  public static final int SECRET_BYTES = 32;

  private static final int FAMILY = 32;
  private static final int PORT = 33;
  private static final int ADDRESS = 35;
  private static final int RESERVED = 51;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] secret;
  private final InetSocketAddress root;

  public WorldUid(byte[] secret, InetSocketAddress root) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("secret must be " + SECRET_BYTES + " bytes");
    }
    if (root.getAddress() == null || root.getPort() <= 0 || root.getPort() > 0xFFFF) {
      throw new IllegalArgumentException("root must be a resolved address with a port: " + root);
    }
    this.secret = secret.clone();
    this.root = root;
  }

  /** A uid with a fresh random secret for a root listening at {@code root}. */
  public static WorldUid create(InetSocketAddress root) {
    byte[] secret = new byte[SECRET_BYTES];
    RANDOM.nextBytes(secret);
    return new WorldUid(secret, root);
  }

  public byte[] secret() {
    return secret.clone();
  }

  public InetSocketAddress root() {
    return root;
  }

  /** The 125 ints: version, then the 124 bytes as signed values (-128..127). */
  public int[] encode() {
    byte[] bytes = new byte[BYTES];
    System.arraycopy(secret, 0, bytes, 0, SECRET_BYTES);
    byte[] address = root.getAddress().getAddress();
    bytes[FAMILY] = (byte) (address.length == 4 ? 4 : 6);
    bytes[PORT] = (byte) (root.getPort() >>> 8);
    bytes[PORT + 1] = (byte) root.getPort();
    System.arraycopy(address, 0, bytes, ADDRESS, address.length);
    int[] uid = new int[LENGTH];
    uid[0] = VERSION;
    for (int i = 0; i < BYTES; i++) {
      uid[i + 1] = bytes[i];
    }
    return uid;
  }

  /** Reads a Tandem world uid; says clearly when it is an NVSHMEM uid or damaged. */
  public static WorldUid decode(int[] uid) throws WorldException {
    if (uid.length != LENGTH) {
      throw new WorldException("the world uid must have " + LENGTH
          + " integers (a version, then " + BYTES + " bytes), got " + uid.length);
    }
    if (uid[0] == NVSHMEM_VERSION) {
      throw new WorldException("this uid is an NVSHMEM uid (version " + NVSHMEM_VERSION
          + "); the builtin engine needs a Tandem world uid (version " + VERSION
          + "), made by the Tandem router's world root (--engine builtin)");
    }
    if (uid[0] != VERSION) {
      throw new WorldException("unknown uid version " + uid[0]
          + ": the builtin engine needs a Tandem world uid (version " + VERSION + ")");
    }
    byte[] bytes = new byte[BYTES];
    for (int i = 0; i < BYTES; i++) {
      int v = uid[i + 1];
      if (v < Byte.MIN_VALUE || v > Byte.MAX_VALUE) {
        throw new WorldException("uid[" + (i + 1) + "] = " + v + " is not a signed byte (-128..127)");
      }
      bytes[i] = (byte) v;
    }
    int family = bytes[FAMILY];
    if (family != 4 && family != 6) {
      throw new WorldException("the world uid is damaged: address family byte uid["
          + (FAMILY + 1) + "] is " + family + ", expected 4 or 6");
    }
    int port = ((bytes[PORT] & 0xFF) << 8) | (bytes[PORT + 1] & 0xFF);
    if (port == 0) {
      throw new WorldException("the world uid is damaged: it names port 0 for the world root");
    }
    int addressLength = family == 4 ? 4 : 16;
    for (int i = ADDRESS + addressLength; i < BYTES; i++) {
      if (bytes[i] != 0) {
        throw new WorldException("the world uid is damaged: reserved uid[" + (i + 1)
            + "] is " + bytes[i] + ", expected 0");
      }
    }
    InetAddress address;
    try {
      address = InetAddress.getByAddress(Arrays.copyOfRange(bytes, ADDRESS, ADDRESS + addressLength));
    } catch (UnknownHostException e) {
      throw new WorldException("the world uid is damaged: bad root address", e);
    }
    return new WorldUid(Arrays.copyOf(bytes, SECRET_BYTES), new InetSocketAddress(address, port));
  }

  /** Root address as {@code host:port} for messages. */
  public String rootText() {
    return hostPort(root);
  }

  static String hostPort(InetSocketAddress address) {
    String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorldUid other && Arrays.equals(secret, other.secret) && root.equals(other.root);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(secret) * 31 + root.hashCode();
  }

  @Override
  public String toString() {
    return "WorldUid{root=" + rootText() + "}"; // never print the secret
  }
}
