package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The README's first command is `./tandem demo` with no flags: its defaults must parse. */
class DemoCommandOptionsTest {

  @Test
  void defaultsParseWithoutFlags() {
    DemoCommand demo = new DemoCommand();
    new CommandLine(demo).parseArgs();
    assertEquals(List.of(8081, 8082, 8083), demo.endpointPorts);
    assertEquals(8000, demo.routerPort);
  }

  @Test
  void givenPortsReplaceTheDefaults() {
    DemoCommand demo = new DemoCommand();
    new CommandLine(demo).parseArgs("--endpoint-ports", "9001", "9002", "9003");
    assertEquals(List.of(9001, 9002, 9003), demo.endpointPorts);
  }
}
