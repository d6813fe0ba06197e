package dev.tandem.cli;

import dev.tandem.config.Option;
import dev.tandem.config.OptionTable;
import dev.tandem.config.OptionValues;
import dev.tandem.config.RouterConfig;
import java.util.List;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * The {@code tandem router} flags, made from {@link RouterConfig#OPTIONS} rather than written by
 * hand: one flag (or the positional {@code MODEL}) per option, in the table's order and sections,
 * with its help, default and JSON key. picocli only collects the words; {@link #apply} reads them
 * with the option's own type and rules, so a bad value is the same {@code ConfigException} (exit
 * code 2, naming the flag) whatever the option.
 */
public final class ConfigFlags implements IModelTransformer {

  @Override
  public CommandSpec transform(CommandSpec spec) {
    return addFlags(spec, RouterConfig.OPTIONS);
  }

  /** One flag per option of {@code table}, a help section per section of it. */
  static CommandSpec addFlags(CommandSpec spec, OptionTable table) {
    for (OptionTable section : table.sections()) {
      ArgGroupSpec.Builder group = ArgGroupSpec.builder().heading("%n" + section.title()
          + " options (JSON key in brackets):%n").exclusive(false).multiplicity("0..1")
          .validate(false);
      for (Option<?> option : section.options()) {
        if (option.flag() == null) {
          spec.addPositional(PositionalParamSpec.builder().index("0").arity("0..1")
              .paramLabel(option.label()).type(String.class)
              .description(option.help() + " [" + option.key() + "]").build());
        } else {
          group.addArg(flag(option));
        }
      }
      spec.addArgGroup(group.build());
    }
    return spec;
  }

  private static OptionSpec flag(Option<?> option) {
    boolean bool = option.type().arity().startsWith("0");
    boolean list = option.type().arity().endsWith("*");
    OptionSpec.Builder b = OptionSpec.builder(option.flag())
        .description(description(option))
        .paramLabel(option.label())
        .arity(option.type().arity());
    if (bool) {
      b.type(Boolean.class).negatable(true).fallbackValue("true");
    } else if (list) {
      b.type(List.class).auxiliaryTypes(String.class);
    } else {
      b.type(String.class);
    }
    if (option.type().split() != null) {
      b.splitRegex(option.type().split());
    }
    return b.build();
  }

  private static String description(Option<?> option) {
    String help = option.help().isEmpty() ? "" : option.help() + ". ";
    return help + "Default: " + option.shownDefault() + ". [" + option.key() + "]";
  }

  /** Sets on {@code config} every option given on the command line (the rest keep its values). */
  public static void apply(ParseResult parsed, OptionValues<?> config) {
    for (Option<?> option : config.options().options()) {
      ArgSpec arg = option.flag() == null ? positional(parsed)
          : parsed.matchedOption(option.flag());
      if (arg == null) {
        continue;
      }
      Object value = arg.getValue();
      if (value instanceof Boolean b) {
        config.setFromArgs(option, List.of(b.toString()));
      } else if (value instanceof List<?> words) {
        config.setFromArgs(option, words.stream().map(String::valueOf).toList());
      } else if (value != null) {
        config.setFromArgs(option, List.of(value.toString()));
      }
    }
  }

  private static ArgSpec positional(ParseResult parsed) {
    return parsed.hasMatchedPositional(0) ? parsed.matchedPositional(0) : null;
  }
}
