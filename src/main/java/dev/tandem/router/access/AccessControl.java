package dev.tandem.router.access;

import dev.tandem.bus.BusStreams;
import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Who may call what. {@code /v1/*} and the bus API take an API key or an admin key once API keys
 * are configured; {@code /admin/*}, {@code /metrics} and {@code /dashboard} take only an admin
 * key once admin keys are configured (a user key gets 403). Without keys a route class is open,
 * as before. Keys come as {@code Authorization: Bearer KEY} (OpenAI's clients), or as the password
 * of {@code Authorization: Basic} (what a browser sends after the dashboard's login prompt); on
 * the bus as the delivery header {@value #BUS_HEADER}. Keys are never logged: the request's
 * {@link ClientKey} (its name) is what the rest of the router sees.
 */
public final class AccessControl {

  /** The event-bus delivery header that carries the caller's key. */
  public static final String BUS_HEADER = BusStreams.API_KEY_HEADER;

  private final ApiKeys apiKeys;
  private final ApiKeys adminKeys;
  private final Consumer<String> rejected;

  /**
   * @param rejected told the cause of every refusal ({@code auth_missing}, {@code auth_invalid},
   *     {@code auth_forbidden}), for the counters
   */
  public AccessControl(ApiKeys userKeys, ApiKeys adminKeys, Consumer<String> rejected) {
    this.apiKeys = userKeys.isEmpty() ? ApiKeys.NONE : userKeys.plus(adminKeys);
    this.adminKeys = adminKeys;
    this.rejected = rejected;
  }

  public boolean apiOpen() {
    return apiKeys.isEmpty();
  }

  public boolean adminOpen() {
    return adminKeys.isEmpty();
  }

  /** For {@code /v1/*}: leaves the {@link ClientKey} in the context, or answers 401. */
  public Handler<RoutingContext> api() {
    return ctx -> {
      try {
        ctx.put(ClientKey.CONTEXT_KEY, checkApi(ctx.request().getHeader(HttpHeaders.AUTHORIZATION)));
        ctx.next();
      } catch (ApiError e) {
        ErrorResponses.send(ctx.response(), e);
      }
    };
  }

  /** For {@code /admin/*}, {@code /metrics}, {@code /dashboard}: 401 (no or wrong key) or 403. */
  public Handler<RoutingContext> admin() {
    return ctx -> {
      if (adminOpen()) {
        ctx.next();
        return;
      }
      String presented = presentedKey(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
      Optional<ClientKey> admin = adminKeys.match(presented);
      if (admin.isPresent()) {
        ctx.put(ClientKey.CONTEXT_KEY, admin.get());
        ctx.next();
        return;
      }
      ApiError error;
      if (presented != null && apiKeys.match(presented).isPresent()) {
        rejected.accept("auth_forbidden");
        error = new ApiError(403, ApiError.INVALID_REQUEST, "this key may call /v1/* but not the"
            + " admin routes (/admin/*, /metrics, /dashboard): use an admin key", null,
            "insufficient_permissions");
      } else {
        // Browsers ask for a user name and password on this; the admin key is the password.
        ctx.response().putHeader("WWW-Authenticate", "Basic realm=\"tandem admin\"");
        error = unauthorized(presented);
      }
      ErrorResponses.send(ctx.response(), error);
    };
  }

  /** For {@code /v1/*} from its {@code Authorization} header: the caller, or a 401 {@link ApiError}. */
  public ClientKey checkApi(String authorization) {
    return check(presentedKey(authorization));
  }

  /** For the bus API: the caller's client, or a 401 {@link ApiError}. */
  public ClientKey checkBus(String presented) {
    return check(presented);
  }

  private ClientKey check(String presented) {
    if (apiOpen()) {
      return ClientKey.ANONYMOUS;
    }
    Optional<ClientKey> client = apiKeys.match(presented);
    if (client.isEmpty()) {
      throw unauthorized(presented);
    }
    return client.get();
  }

  private ApiError unauthorized(String presented) {
    rejected.accept(presented == null ? "auth_missing" : "auth_invalid");
    return new ApiError(401, ApiError.INVALID_REQUEST, presented == null
        ? "no API key: send it as 'Authorization: Bearer KEY' (on the event bus: the delivery"
            + " header " + BUS_HEADER + ")"
        : "incorrect API key provided", null, "invalid_api_key");
  }

  /** The key of an {@code Authorization} header (Bearer, or Basic's password), or null. */
  static String presentedKey(String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.strip();
    if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String key = value.substring(7).strip();
      return key.isEmpty() ? null : key;
    }
    if (value.regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String pair = new String(Base64.getDecoder().decode(value.substring(6).strip()),
            StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        String key = colon >= 0 ? pair.substring(colon + 1) : pair;
        return key.isEmpty() ? null : key;
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }
}
