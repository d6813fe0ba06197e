package dev.tandem.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.JinjavaInterpreter.InterpreterScopeClosable;
import com.hubspot.jinjava.interpret.TemplateSyntaxException;
import com.hubspot.jinjava.lib.tag.ForTag;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import com.hubspot.jinjava.tree.parse.TagToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.lang3.tuple.Pair;

/**
 * Jinja2's {@code for}: iterates as Python does (a string by character, a mapping by key), gives
 * each iteration its own scope (a {@code set} in one iteration is gone in the next, and outside),
 * and supports the inline filter ({@code for m in messages if m.role == 'user'}), the {@code else}
 * block for an empty loop, and {@code loop.previtem}/{@code loop.nextitem} — none of which
 * Jinjava's own tag does.
 */
final class PyForTag extends ForTag {
  private static final long serialVersionUID = 1L;

  @Override
  public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
    Pair<List<String>, String> varsAndExpression = getLoopVarsAndExpression((TagToken) tagNode.getMaster());
    List<String> targets = varsAndExpression.getLeft();
    String[] iterAndCondition = splitCondition(varsAndExpression.getRight());
    if (iterAndCondition[0].endsWith(" recursive")) {
      throw new TemplateSyntaxException(interpreter, tagNode.getHelpers(), "recursive loops are not supported");
    }
    Object collection = interpreter.resolveELExpression(iterAndCondition[0], tagNode.getLineNumber());
    if (collection == PyNone.NONE || collection instanceof Number || collection instanceof Boolean) {
      throw new IllegalArgumentException("'" + (collection == PyNone.NONE ? "NoneType"
          : collection.getClass().getSimpleName()) + "' object is not iterable");
    }
    List<Object> items = new ArrayList<>();
    for (Object item : PyFilters.list(collection instanceof Map<?, ?> m ? m.keySet() : collection)) {
      if (iterAndCondition[1] == null || accepts(interpreter, tagNode, targets, item, iterAndCondition[1])) {
        items.add(item);
      }
    }
    List<Node> body = new ArrayList<>();
    List<Node> orElse = new ArrayList<>();
    List<Node> into = body;
    for (Node child : tagNode.getChildren()) {
      if (child instanceof TagNode t && t.getName().equals("else")) {
        into = orElse;
      } else {
        into.add(child);
      }
    }
    StringBuilder out = new StringBuilder();
    if (items.isEmpty()) {
      try (InterpreterScopeClosable scope = interpreter.enterScope()) {
        orElse.forEach(n -> out.append(n.render(interpreter).getValue()));
      }
      return out.toString();
    }
    PyLoop loop = new PyLoop(items);
    while (loop.hasNext()) {
      Object item = loop.next();
      try (InterpreterScopeClosable scope = interpreter.enterScope()) {
        interpreter.getContext().put(LOOP, loop);
        bind(interpreter, targets, item);
        for (Node n : body) {
          out.append(n.render(interpreter).getValue());
          if (loop.isContinued()) {
            break;
          }
        }
      }
    }
    return out.toString();
  }

  private static boolean accepts(JinjavaInterpreter interpreter, TagNode tagNode, List<String> targets,
      Object item, String condition) {
    try (InterpreterScopeClosable scope = interpreter.enterScope()) {
      bind(interpreter, targets, item);
      return PyValues.truth(interpreter.resolveELExpression(condition, tagNode.getLineNumber()));
    }
  }

  /** Assigns the loop target(s): one name, or several unpacked from a pair or a list. */
  private static void bind(JinjavaInterpreter interpreter, List<String> targets, Object item) {
    if (targets.size() == 1) {
      interpreter.getContext().put(targets.get(0), interpreter.wrap(item));
      return;
    }
    List<?> parts;
    if (item instanceof Map.Entry<?, ?> e) {
      parts = java.util.Arrays.asList(e.getKey(), e.getValue());
    } else if (item instanceof List<?> list) {
      parts = list;
    } else {
      throw new IllegalArgumentException("cannot unpack " + PyValues.repr(item) + " into " + targets);
    }
    if (parts.size() != targets.size()) {
      throw new IllegalArgumentException("expected " + targets.size() + " values to unpack, got "
          + parts.size());
    }
    for (int i = 0; i < targets.size(); i++) {
      interpreter.getContext().put(targets.get(i), interpreter.wrap(parts.get(i)));
    }
  }

  /** {@code iterable if condition} split at its top-level {@code if} (none: {@code [expr, null]}). */
  static String[] splitCondition(String expression) {
    int depth = 0;
    for (int i = 0; i < expression.length(); i++) {
      char c = expression.charAt(i);
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < expression.length() && expression.charAt(j) != c) {
          j += expression.charAt(j) == '\\' ? 2 : 1;
        }
        i = j;
      } else if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
      } else if (depth == 0 && expression.startsWith("if", i) && (i == 0 || !isNamePart(expression.charAt(i - 1)))
          && (i + 2 == expression.length() || !isNamePart(expression.charAt(i + 2)))) {
        return new String[] {expression.substring(0, i).trim(), expression.substring(i + 2).trim()};
      }
    }
    return new String[] {expression.trim(), null};
  }

  private static boolean isNamePart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}
