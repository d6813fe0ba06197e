package dev.tandem;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package picture of docs/architecture.md, stated as rules over the main classes:
 * {@code cli -> supervisor -> {router, fleet, world} -> {bus, config, chat, api, kv, tokenizer}}, and
 * the builtin engine ({@code engine.*}) a world of its own that shares only {@code api}, {@code kv},
 * {@code chat} and the tokenizer with the rest. {@code chat} (requests, templates, tool calls and
 * response shapes of chat completions) builds on {@code api} and the tokenizer only.
 */
class ArchitectureTest {

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.tandem");
  }

  private static void check(ArchRule rule) {
    rule.check(main);
  }

  @Test
  void noPackageImportsAnotherInACircle() {
    check(slices().matching("dev.tandem.(**)").should().beFreeOfCycles());
  }

  @Test
  void theBuiltinEngineSharesOnlyWireTypesKvInterfacesChatAndTheTokenizer() {
    check(noClasses().that().resideInAPackage("dev.tandem.engine..").should().dependOnClassesThat()
        .resideInAnyPackage("dev.tandem.router..", "dev.tandem.supervisor..", "dev.tandem.fleet..",
            "dev.tandem.cli..", "dev.tandem.bench..", "dev.tandem.world..", "dev.tandem.bus..",
            "dev.tandem.config.."));
  }

  @Test
  void contractsImportNoneOfTheirUsers() {
    check(noClasses().that().resideInAnyPackage("dev.tandem.bus..", "dev.tandem.api..",
            "dev.tandem.kv..", "dev.tandem.tokenizer..", "dev.tandem.config..", "dev.tandem.retry..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.tandem.router..",
            "dev.tandem.supervisor..", "dev.tandem.fleet..", "dev.tandem.cli..", "dev.tandem.bench..",
            "dev.tandem.world..", "dev.tandem.engine..", "dev.tandem.chat.."));
  }

  @Test
  void chatBuildsOnTheWireTypesAndTheTokenizerOnly() {
    check(classes().that().resideInAPackage("dev.tandem.chat..").should().onlyDependOnClassesThat(
        resideOutsideOfPackage("dev.tandem..").or(resideInAnyPackage("dev.tandem.chat..",
            "dev.tandem.api..", "dev.tandem.tokenizer.."))));
  }

  @Test
  void theBusContractWireTypesKvInterfacesTokenizerAndBackOffImportNothingOfOurs() {
    for (String pkg : List.of("dev.tandem.bus..", "dev.tandem.api..", "dev.tandem.kv..",
        "dev.tandem.tokenizer..", "dev.tandem.retry..")) {
      check(noClasses().that().resideInAPackage(pkg).should().dependOnClassesThat(
          resideInAPackage("dev.tandem..").and(resideOutsideOfPackage(pkg))));
    }
  }

  @Test
  void theBusClientKnowsTheBusContractOnly() {
    check(classes().that().resideInAPackage("dev.tandem.client..").should().onlyDependOnClassesThat(
        resideOutsideOfPackage("dev.tandem..").or(resideInAnyPackage("dev.tandem.client..",
            "dev.tandem.bus.."))));
  }

  @Test
  void routerFleetAndWorldKnowEachOtherOnlyThroughTheBus() {
    check(noClasses().that().resideInAPackage("dev.tandem.router..").should().dependOnClassesThat()
        .resideInAnyPackage("dev.tandem.fleet..", "dev.tandem.world..", "dev.tandem.supervisor..",
            "dev.tandem.cli..", "dev.tandem.engine..", "dev.tandem.bench.."));
    check(noClasses().that().resideInAPackage("dev.tandem.fleet..").should().dependOnClassesThat()
        .resideInAnyPackage("dev.tandem.router..", "dev.tandem.supervisor..", "dev.tandem.cli..",
            "dev.tandem.engine..", "dev.tandem.bench.."));
    check(noClasses().that().resideInAPackage("dev.tandem.world..").should().dependOnClassesThat()
        .resideInAnyPackage("dev.tandem.router..", "dev.tandem.supervisor..", "dev.tandem.fleet..",
            "dev.tandem.cli..", "dev.tandem.engine..", "dev.tandem.bench.."));
  }

  @Test
  void onlyTheCommandLineSitsAboveTheSupervisor() {
    check(noClasses().that().resideOutsideOfPackages("dev.tandem.cli..", "dev.tandem.supervisor..")
        .should().dependOnClassesThat().resideInAPackage("dev.tandem.supervisor.."));
    check(noClasses().that().resideOutsideOfPackage("dev.tandem.cli..").should()
        .dependOnClassesThat().resideInAPackage("dev.tandem.cli.."));
  }
}
