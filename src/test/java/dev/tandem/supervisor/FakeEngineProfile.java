package dev.tandem.supervisor;

import dev.tandem.config.EngineKind;
import dev.tandem.fleet.BuiltinProfile;
import dev.tandem.fleet.EngineCommand;
import dev.tandem.fleet.EngineLaunch;
import dev.tandem.fleet.EngineProfile;
import dev.tandem.fleet.FakeEngine;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/** FAKE: launches {@link FakeEngine} with per-engine arguments in place of a real engine. */
final class FakeEngineProfile implements EngineProfile {
  private final IntFunction<List<String>> fakeArgs;

  FakeEngineProfile(IntFunction<List<String>> fakeArgs) {
    this.fakeArgs = fakeArgs;
  }

  @Override
  public EngineKind kind() {
    return EngineKind.BUILTIN;
  }

  @Override
  public String healthPath() {
    return "/health";
  }

  @Override
  public EngineCommand command(EngineLaunch launch) {
    String classes;
    try {
      classes = Path.of(FakeEngine.class.getProtectionDomain().getCodeSource().getLocation()
          .toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<String> argv = new ArrayList<>(List.of(BuiltinProfile.javaExecutable(), "-Xmx32m",
        "-XX:TieredStopAtLevel=1", "-cp", classes, FakeEngine.class.getName(),
        Integer.toString(launch.endpoint().port())));
    argv.addAll(fakeArgs.apply(launch.endpoint().id()));
    return new EngineCommand(argv, Map.of());
  }
}
