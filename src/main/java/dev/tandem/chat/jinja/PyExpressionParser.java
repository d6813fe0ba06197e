package dev.tandem.chat.jinja;

import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.COLON;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.IDENTIFIER;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.LBRACK;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.LPAREN;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.RBRACK;

import com.hubspot.jinjava.el.ExtendedSyntaxBuilder;
import com.hubspot.jinjava.el.ext.AdditionOperator;
import com.hubspot.jinjava.el.ext.AstNamedParameter;
import com.hubspot.jinjava.el.ext.ExtendedParser;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import jinjava.de.odysseus.el.tree.impl.Builder;
import jinjava.de.odysseus.el.tree.impl.Parser;
import jinjava.de.odysseus.el.tree.impl.Scanner.ScanException;
import jinjava.de.odysseus.el.tree.impl.Scanner.Symbol;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstDot;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.de.odysseus.el.tree.impl.ast.AstParameters;
import jinjava.de.odysseus.el.tree.impl.ast.AstProperty;
import jinjava.de.odysseus.el.tree.impl.ast.AstUnary;

/**
 * Jinjava's expression parser with Jinja2's grammar where they differ:
 * <ul>
 *   <li>slices with a step ({@code messages[::-1]}), with Python's semantics for every slice;</li>
 *   <li>filters and tests chain in any order after a primary ({@code messages|last is mapping});</li>
 *   <li>{@code not} binds looser than comparisons ({@code not a == b} is {@code not (a == b)});</li>
 *   <li>{@code +} and {@code *} on strings and lists, and {@code and} returning an operand, as Python.</li>
 * </ul>
 */
final class PyExpressionParser extends ExtendedParser {
  private static final String FILTER_PREFIX = "filter:";
  private static final String EXPTEST_PREFIX = "exptest:";
  /** Tokens that may name a test after {@code is} (Jinjava's list; {@code in} is an extension token). */
  private static final Set<Symbol> TEST_NAMES = EnumSet.of(IDENTIFIER, Symbol.EQ, Symbol.NE,
      Symbol.LT, Symbol.LE, Symbol.GT, Symbol.GE, Symbol.TRUE, Symbol.FALSE, Symbol.NULL);
  /** Tokens that start a test's single argument ({@code is divisibleby 3}), as Jinja2's parse_test. */
  private static final Set<Symbol> TEST_ARGUMENT_STARTS = EnumSet.of(IDENTIFIER, Symbol.STRING,
      Symbol.INTEGER, Symbol.FLOAT, Symbol.TRUE, Symbol.FALSE, Symbol.NULL, LPAREN, LBRACK);

  PyExpressionParser(Builder context, String input) {
    super(context, input);
  }

  /** The tree builder that makes this parser. */
  static final class TreeBuilder extends ExtendedSyntaxBuilder {
    private static final long serialVersionUID = 1L;

    TreeBuilder() {
      super(Builder.Feature.METHOD_INVOCATIONS, Builder.Feature.VARARGS);
    }

    @Override
    protected Parser createParser(String expression) {
      return new PyExpressionParser(this, expression);
    }
  }

  @Override
  protected AstBinary createAstBinary(AstNode left, AstNode right, AstBinary.Operator operator) {
    AstBinary.Operator op = operator;
    if (operator == AdditionOperator.OP || operator == AstBinary.ADD) {
      op = PyOperators.ADD;
    } else if (operator == AstBinary.MUL) {
      op = PyOperators.MUL;
    } else if (operator == AstBinary.AND) {
      op = PyOperators.AND;
    } else if (operator == AstBinary.MOD) {
      op = PyOperators.MOD;
    } else if (operator == AstBinary.EQ) {
      op = PyOperators.EQ;
    } else if (operator == AstBinary.NE) {
      op = PyOperators.NE;
    }
    return super.createAstBinary(left, right, op);
  }

  /** Python string literals: {@code \\u00e9}, {@code \\x41}, octal, and unknown escapes kept. */
  @Override
  protected jinjava.de.odysseus.el.tree.impl.Scanner createScanner(String expression) {
    return new PyScanner(expression);
  }

  /**
   * Call arguments and list items; {@code name=value} takes a whole expression as its value
   * ({@code namespace(n=messages|length - 1)}), where Jinjava binds {@code =} like {@code +}.
   */
  @Override
  protected AstParameters params(Symbol left, Symbol right) throws ScanException, ParseException {
    consumeToken(left);
    List<AstNode> items = new ArrayList<>();
    while (getToken().getSymbol() != right) {
      if (getToken().getSymbol() == IDENTIFIER && "=".equals(lookahead(0).getImage())) {
        String name = consumeToken().getImage();
        consumeToken();
        items.add(new AstNamedParameter(identifier(name), expr(true)));
      } else {
        items.add(expr(true));
      }
      if (getToken().getSymbol() != Symbol.COMMA) {
        break;
      }
      consumeToken();
    }
    consumeToken(right);
    return createAstParameters(items);
  }

  /** Jinja2's {@code not} sits between {@code and} and the comparisons. */
  @Override
  protected AstNode eq(boolean required) throws ScanException, ParseException {
    if (getToken().getSymbol() == Symbol.NOT) {
      consumeToken();
      return createAstUnary(eq(true), AstUnary.NOT);
    }
    return super.eq(required);
  }

  /** A unary expression followed by any chain of filters and tests. */
  @Override
  protected AstNode filter(boolean required) throws ScanException, ParseException {
    AstNode v = unary(required);
    if (v == null) {
      return null;
    }
    while (true) {
      if ("|".equals(getToken().getImage()) && lookahead(0).getSymbol() == IDENTIFIER) {
        consumeToken();
        v = filterCall(v, consumeToken().getImage());
      } else if ("is".equals(getToken().getImage()) && "not".equals(lookahead(0).getImage())
          && TEST_NAMES.contains(lookahead(1).getSymbol())) {
        consumeToken();
        consumeToken();
        v = testCall(v, "evaluateNegated");
      } else if ("is".equals(getToken().getImage()) && isTestName(lookahead(0))) {
        consumeToken();
        v = testCall(v, "evaluate");
      } else {
        return v;
      }
    }
  }

  private static boolean isTestName(jinjava.de.odysseus.el.tree.impl.Scanner.Token token) {
    return TEST_NAMES.contains(token.getSymbol()) || "in".equals(token.getImage());
  }

  private AstNode filterCall(AstNode input, String name) throws ScanException, ParseException {
    List<AstNode> params = new ArrayList<>(List.of(input, interpreter()));
    if (getToken().getSymbol() == LPAREN) {
      AstParameters args = params();
      for (int i = 0; i < args.getCardinality(); i++) {
        params.add(args.getChild(i));
      }
    }
    AstProperty filter = createAstDot(identifier(FILTER_PREFIX + name), "filter", true);
    return createAstMethod(filter, createAstParameters(params));
  }

  private AstNode testCall(AstNode input, String method) throws ScanException, ParseException {
    String name = consumeToken().getImage();
    List<AstNode> params = new ArrayList<>(List.of(input, interpreter()));
    if (getToken().getSymbol() == LPAREN) {
      AstParameters args = params();
      for (int i = 0; i < args.getCardinality(); i++) {
        params.add(args.getChild(i));
      }
    } else if (TEST_ARGUMENT_STARTS.contains(getToken().getSymbol())
        && !"is".equals(getToken().getImage()) || getToken().getImage().equals("{")) {
      params.add(value());
    }
    AstProperty test = createAstDot(identifier(EXPTEST_PREFIX + name), method, true);
    return createAstMethod(test, createAstParameters(params));
  }

  /** A primary with its postfix operations: attributes, calls, subscripts and slices. */
  @Override
  protected AstNode value() throws ScanException, ParseException {
    boolean lvalue = true;
    AstNode v = nonliteral();
    if (v == null) {
      v = literal();
      if (v == null) {
        return null;
      }
      lvalue = false;
    }
    boolean methods = context.isEnabled(Builder.Feature.METHOD_INVOCATIONS);
    while (true) {
      if (getToken().getSymbol() == Symbol.DOT) {
        consumeToken();
        AstDot dot = createAstDot(v, consumeToken(IDENTIFIER).getImage(), lvalue);
        v = getToken().getSymbol() == LPAREN && methods ? createAstMethod(dot, params()) : dot;
      } else if (getToken().getSymbol() == LBRACK) {
        consumeToken();
        v = subscript(v, lvalue, methods);
      } else {
        return v;
      }
    }
  }

  /** After {@code [}: an index ({@code x[i]}) or a slice ({@code x[a:b:c]}, any part optional). */
  private AstNode subscript(AstNode base, boolean lvalue, boolean methods)
      throws ScanException, ParseException {
    AstNode start = getToken().getSymbol() == COLON ? null : expr(true);
    if (getToken().getSymbol() == RBRACK) {
      consumeToken();
      var bracket = createAstBracket(base, start, lvalue, true);
      return getToken().getSymbol() == LPAREN && methods ? createAstMethod(bracket, params()) : bracket;
    }
    consumeToken(COLON);
    AstNode stop = isSliceEnd() ? null : expr(true);
    AstNode step = null;
    if (getToken().getSymbol() == COLON) {
      consumeToken();
      step = getToken().getSymbol() == RBRACK ? null : expr(true);
    }
    consumeToken(RBRACK);
    return new PySlice(base, start, stop, step);
  }

  private boolean isSliceEnd() {
    Symbol s = getToken().getSymbol();
    return s == COLON || s == RBRACK;
  }
}
