package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.bus.EngineRole;
import dev.tandem.config.EndpointConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BuiltinProfileTest {

  @Test
  void runsTandemServeInItsOwnJvmWithMlcsFlagsAndItsCores() {
    EndpointConfig endpoint = new EndpointConfig(2, "127.0.0.1", 9002, 2, 2, EngineRole.DECODE);
    WorldInit world = new WorldInit(new int[] {1, 2, 3}, 3);
    EngineLaunch launch = new EngineLaunch("/m/tiny", null, endpoint, true, "max_num_sequence=4",
        world);
    EngineCommand command = new BuiltinProfile("/jdk/bin/java", List.of("-Xmx512m"),
        "/x/tandem.jar", 4242, null).command(launch);
    assertEquals(List.of("/jdk/bin/java", "-Xmx512m", "--add-modules=jdk.incubator.vector", "-Dai.djl.offline=true",
        "-Dhazelcast.phone.home.enabled=false", "-cp", "/x/tandem.jar", "dev.tandem.cli.Tandem",
        "serve", "/m/tiny", "--device", "cpu:2", "--enable-debug", "--mode", "server",
        "--speculative-mode", "disable", "--prefix-cache-mode", "radix", "--overrides",
        "gpu_memory_utilization=0.8;spec_draft_length=0;tensor_parallel_shards=2;max_num_sequence=4",
        "--enable-debug",
        "--host", "127.0.0.1", "--port", "9002"), command.argv());
    assertEquals(Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR",
        "{\"uid\": [1, 2, 3], \"npes\": 3, \"pe_start\": 2}", "DJL_OFFLINE", "true",
        "TANDEM_PARENT_PID", "4242"), command.extraEnv());
  }

  @Test
  void anEndpointOfSeveralDevicesHoldsThatManyPesAsTensorParallelShards() {
    EndpointConfig endpoint = new EndpointConfig(1, "127.0.0.1", 9001, 2, 2, EngineRole.DECODE);
    EngineLaunch launch = new EngineLaunch("/m/tiny", null, endpoint, false, null,
        new WorldInit(new int[] {1, 2, 3}, 6));
    List<String> argv = new BuiltinProfile("/jdk/bin/java", List.of(), "/x/tandem.jar", 1, null)
        .command(launch).argv();
    assertEquals("gpu_memory_utilization=0.8;spec_draft_length=0;tensor_parallel_shards=2",
        argv.get(argv.indexOf("--overrides") + 1));
    assertEquals("cpu:2", argv.get(argv.indexOf("--device") + 1), "its first PE");
  }
}
