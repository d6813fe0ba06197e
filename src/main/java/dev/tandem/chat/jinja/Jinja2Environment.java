package dev.tandem.chat.jinja;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.loader.ResourceLocator;
import com.hubspot.jinjava.tree.Node;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Map;
import java.util.Set;
import jinjava.de.odysseus.el.ExpressionFactoryImpl;
import jinjava.de.odysseus.el.tree.TreeStore;
import jinjava.de.odysseus.el.tree.impl.Cache;
import jinjava.javax.el.CompositeELResolver;
import jinjava.javax.el.ExpressionFactory;

/**
 * A Jinjava set up to render templates as Jinja2 does under transformers' {@code
 * apply_chat_template} (an ImmutableSandboxedEnvironment with {@code trim_blocks},
 * {@code lstrip_blocks} and loop controls, its own {@code tojson}, {@code raise_exception} and
 * {@code strftime_now}). Thread-safe; one per process is enough. See package docs for what differs.
 */
public final class Jinja2Environment {
  /** Parsed expressions kept; chat templates have a few hundred. */
  private static final int EXPRESSION_CACHE_SIZE = 4096;

  private final Jinjava jinjava;
  private final JinjavaConfig config;
  /**
   * Each thread's copy of the globals (filters, tests, functions, tags), the parent of every
   * render's context. Jinjava copies them for every render, which costs more than rendering a
   * short chat; a render records into its parent, so a copy is never shared between threads.
   */
  private final ThreadLocal<Context> threadGlobals;

  public Jinja2Environment() {
    CompositeELResolver resolver = new CompositeELResolver();
    resolver.add(new PyMethodResolver());
    resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
    this.config = JinjavaConfig.newBuilder()
        .withTrimBlocks(false) // done by Jinja2Whitespace, as Jinja2's lexer does it
        .withLstripBlocks(false)
        .withLegacyOverrides(LegacyOverrides.newBuilder()
            .withUseNaturalOperatorPrecedence(true)
            .withParseWhitespaceControlStrictly(true)
            .withEvaluateMapKeys(true)
            .withKeepNullableLoopValues(true)
            .withIterateOverMapKeys(true)
            .build())
        // never render a value's text as a template: message content such as "{{ x }}" is data
        .withNestedInterpretationEnabled(false)
        .withElResolver(resolver)
        .withInterperterFactory(new PyInterpreter.Factory())
        .withDisabled(Map.of(Context.Library.TAG, Set.of("include", "import", "from", "extends")))
        .build();
    ExpressionFactory expressions = new ExpressionFactoryImpl(
        new TreeStore(new PyExpressionParser.TreeBuilder(), new Cache(EXPRESSION_CACHE_SIZE)),
        new PyInterpreter.TypeConverter());
    this.jinjava = new Jinjava(config) {
      @Override
      public ExpressionFactory getExpressionFactory() {
        return expressions;
      }
    };
    jinjava.setResourceLocator(new NoTemplates());
    Context globals = jinjava.getGlobalContext();
    PyFilters.all().forEach(globals::registerFilter);
    PyTests.all().forEach(globals::registerExpTest);
    PyFunctions.all().forEach(globals::registerFunction);
    globals.registerTag(new PyTags.PyIfTag());
    globals.registerTag(new PyForTag());
    globals.registerTag(new PyTags.GenerationTag());
    globals.put("none", PyNone.NONE);
    globals.put("None", PyNone.NONE);
    this.threadGlobals = ThreadLocal.withInitial(jinjava::getGlobalContextCopy);
  }

  /**
   * Parses a template once; the result renders any number of times, from any thread.
   *
   * @throws Jinja2Exception of kind SYNTAX when the template does not parse
   */
  public Jinja2Template compile(String source) {
    String normalized;
    try {
      normalized = Jinja2Whitespace.apply(source);
    } catch (IllegalArgumentException e) {
      throw new Jinja2Exception(Jinja2Exception.Kind.SYNTAX, e.getMessage());
    }
    JinjavaInterpreter interpreter = newInterpreter(Map.of());
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      Node root = interpreter.parse(normalized);
      for (TemplateError error : interpreter.getErrorsCopy()) {
        if (error.getSeverity() == TemplateError.ErrorType.FATAL) {
          throw new Jinja2Exception(Jinja2Exception.Kind.SYNTAX,
              "line " + error.getLineno() + ": " + error.getMessage());
        }
      }
      return new Jinja2Template(this, root);
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  JinjavaInterpreter newInterpreter(Map<String, Object> bindings) {
    Context base = threadGlobals.get();
    base.reset(); // what the previous render on this thread recorded (Jinjava resets after each render too)
    Context context = new Context(base, bindings, config.getDisabled());
    return config.getInterpreterFactory().newInstance(jinjava, context, config);
  }

  /** Templates are self-contained strings: {@code include} and friends have nothing to load. */
  private static final class NoTemplates implements ResourceLocator {
    @Override
    public String getString(String fullName, Charset encoding, JinjavaInterpreter interpreter)
        throws IOException {
      throw new IOException("chat templates cannot load other templates (" + fullName + ")");
    }
  }
}
