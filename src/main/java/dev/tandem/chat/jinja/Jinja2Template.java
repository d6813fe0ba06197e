package dev.tandem.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.tree.Node;
import java.util.HashMap;
import java.util.Map;

/** A parsed template: render it with Python-shaped variables (JSON values; null is None). */
public final class Jinja2Template {
  private final Jinja2Environment environment;
  private final Node root;

  Jinja2Template(Jinja2Environment environment, Node root) {
    this.environment = environment;
    this.root = root;
  }

  /**
   * Renders with {@code variables}: strings, numbers, booleans, Vert.x JSON objects and arrays,
   * Java maps and lists; a null value is Python's None (a variable that is set, to None).
   *
   * @throws Jinja2Exception RAISED when the template called {@code raise_exception}, RENDER when it
   *     failed otherwise
   */
  public String render(Map<String, ?> variables) {
    Map<String, Object> bindings = new HashMap<>();
    variables.forEach((k, v) -> bindings.put(k, PyValues.fromJson(v)));
    JinjavaInterpreter interpreter = environment.newInterpreter(bindings);
    JinjavaInterpreter.pushCurrent(interpreter);
    String output;
    try {
      output = interpreter.render(root, false);
    } catch (PyFunctions.Raised e) {
      throw new Jinja2Exception(Jinja2Exception.Kind.RAISED, e.getMessage());
    } catch (RuntimeException e) {
      throw new Jinja2Exception(Jinja2Exception.Kind.RENDER, String.valueOf(e.getMessage()));
    } finally {
      JinjavaInterpreter.popCurrent();
    }
    checkErrors(interpreter);
    return output;
  }

  /** Jinjava records failures and goes on; Jinja2 stops at the first. The first one decides. */
  private static void checkErrors(JinjavaInterpreter interpreter) {
    for (TemplateError error : interpreter.getErrorsCopy()) {
      for (Throwable t = error.getException(); t != null; t = t.getCause()) {
        if (t instanceof PyFunctions.Raised raised) {
          throw new Jinja2Exception(Jinja2Exception.Kind.RAISED, raised.getMessage());
        }
      }
      if (error.getSeverity() == TemplateError.ErrorType.FATAL) {
        throw new Jinja2Exception(Jinja2Exception.Kind.RENDER,
            "line " + error.getLineno() + ": " + error.getMessage());
      }
    }
  }
}
