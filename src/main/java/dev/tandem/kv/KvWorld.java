package dev.tandem.kv;

/**
 * What an engine sees of the KV world it joined: its place ({@code peStart}, {@code numPes} of
 * {@code npes}) and a shipper that reaches every other PE. The builtin engine gets one from the
 * command line that started it (the world's transport lives in {@code dev.tandem.world}); the
 * engine itself only uses this interface.
 */
public interface KvWorld extends AutoCloseable {
  /**
   * The environment variable an engine finds its world in (MLC's name): JSON with the 125-integer
   * uid, the world's {@code npes} and the engine's {@code pe_start}.
   */
  String ENV = "MLC_NVSHMEM_INIT_CONFIG_JSON_STR";

  int peStart();

  int numPes();

  /** Total PEs of the world. */
  int npes();

  KvShipper shipper();

  @Override
  void close();
}
