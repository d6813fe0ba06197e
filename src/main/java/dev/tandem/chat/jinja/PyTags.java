package dev.tandem.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.tag.IfTag;
import com.hubspot.jinjava.lib.tag.Tag;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;

/** Tags that differ from Jinjava's, or that transformers adds. */
final class PyTags {
  private PyTags() {}

  /** {@code if}/{@code elif} with Python's truth (Jinjava takes the string "false" as false). */
  static final class PyIfTag extends IfTag {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean isPositiveIfElseNode(TagNode tagNode, JinjavaInterpreter interpreter) {
      return PyValues.truth(interpreter.resolveELExpression(tagNode.getHelpers(),
          tagNode.getLineNumber(), tagNode.getStartPosition()));
    }
  }

  /**
   * transformers' {@code {% generation %}...{% endgeneration %}}: marks the assistant's part for
   * training masks; for rendering it is its body.
   */
  static final class GenerationTag implements Tag {
    private static final long serialVersionUID = 1L;

    @Override
    public String getName() {
      return "generation";
    }

    @Override
    public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
      StringBuilder sb = new StringBuilder();
      for (Node child : tagNode.getChildren()) {
        sb.append(child.render(interpreter).getValue());
      }
      return sb.toString();
    }
  }
}
