package dev.tandem.router.access;

/**
 * Who sent a request, as far as limits and logs need to know: a name that is never the key itself
 * ({@code name=} from the key file, else {@code key-} and 8 hex digits of the key's SHA-256), and
 * the key's own per-minute limits (null: the router's {@code --key-rpm} / {@code --key-tpm}).
 *
 * @param admin the key came from the admin key file (opens /admin/*, /metrics, /dashboard)
 */
public record ClientKey(String name, Integer requestsPerMinute, Integer tokensPerMinute,
    boolean admin) {

  /** Requests of a router without API keys: one shared client for the per-key limits. */
  public static final ClientKey ANONYMOUS = new ClientKey("anonymous", null, null, false);

  /** The routing-context key under which {@link AccessControl} leaves the request's client. */
  public static final String CONTEXT_KEY = "tandem.client";
}
