package dev.tandem.bus;

/**
 * The names of the bus completions API that callers use (headers, address suffixes, message
 * fields), shared by the router's endpoint and {@code dev.tandem.client.TandemBusClient}; the
 * protocol itself is documented on the router's {@code BusCompletionsEndpoint} and in
 * docs/cluster.md.
 */
public final class BusStreams {
  /** Delivery header of a streaming request: the address that receives the chunks. */
  public static final String STREAM_ADDRESS_HEADER = "tandem-stream-address";
  /** Delivery header of a streaming request: the chunks the caller can take at first. */
  public static final String CREDIT_HEADER = "tandem-stream-credit";
  /** Delivery header carrying the API key, once the router has keys. */
  public static final String API_KEY_HEADER = "tandem-api-key";
  /** {@code <stream address>.cancel}: anything sent there stops the request. */
  public static final String CANCEL_SUFFIX = ".cancel";
  /** {@code <stream address>.credit}: {@code {"credit": n}} grants n more chunks. */
  public static final String CREDIT_SUFFIX = ".credit";
  /** The field of a grant. */
  public static final String CREDIT = "credit";
  /** A message with this field is a liveness probe, not a chunk: ignore it. */
  public static final String PROBE = "probe";
  /** The field of the final message of a stream that ended well. */
  public static final String DONE = "done";
  /** The field of the final message of a stream that failed (with {@code status}). */
  public static final String ERROR = "error";

  private BusStreams() {}
}
