package dev.tandem.chat.jinja;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.TruthyTypeConverter;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.InterpreterFactory;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;

/** Jinjava's interpreter printing values as Python's {@code str()} does ({@code True}, {@code None}, ...). */
final class PyInterpreter extends JinjavaInterpreter {

  PyInterpreter(Jinjava application, Context context, JinjavaConfig config) {
    super(application, context, config);
  }

  PyInterpreter(JinjavaInterpreter orig) {
    super(orig);
  }

  @Override
  public String getAsString(Object object) {
    return PyValues.str(object);
  }

  static final class Factory implements InterpreterFactory {
    @Override
    public JinjavaInterpreter newInstance(JinjavaInterpreter orig) {
      return new PyInterpreter(orig);
    }

    @Override
    public JinjavaInterpreter newInstance(Jinjava application, Context context, JinjavaConfig config) {
      return new PyInterpreter(application, context, config);
    }
  }

  /** Python's truth for {@code and}/{@code or}/{@code not}, Python's str() where a string is needed. */
  static final class TypeConverter extends TruthyTypeConverter {
    private static final long serialVersionUID = 1L;

    @Override
    protected Boolean coerceToBoolean(Object value) {
      return PyValues.truth(value);
    }

    @Override
    protected String coerceToString(Object value) {
      return PyValues.str(value);
    }
  }
}
