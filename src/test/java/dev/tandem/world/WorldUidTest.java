package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class WorldUidTest {

  @Test
  void roundTripsIpv4AndIpv6() throws Exception {
    for (String host : new String[] {"127.0.0.1", "10.1.2.250", "::1", "fe80::1:ff"}) {
      WorldUid uid = WorldUid.create(new InetSocketAddress(InetAddress.getByName(host), 54321));
      int[] ints = uid.encode();
      assertEquals(125, ints.length);
      assertEquals(WorldUid.VERSION, ints[0]);
      for (int i = 1; i < ints.length; i++) {
        assertTrue(ints[i] >= -128 && ints[i] <= 127, "signed byte at " + i);
      }
      WorldUid back = WorldUid.decode(ints);
      assertEquals(uid, back);
      assertEquals(54321, back.root().getPort());
      assertArrayEquals(uid.secret(), back.secret());
    }
  }

  @Test
  void versionIsNotNvshmems() {
    assertEquals(65664, WorldUid.NVSHMEM_VERSION);
    assertNotEquals(WorldUid.NVSHMEM_VERSION, WorldUid.VERSION);
    assertEquals(1413566020, WorldUid.VERSION);
  }

  @Test
  void secretsDiffer() throws Exception {
    InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
    assertNotEquals(WorldUid.create(a), WorldUid.create(a));
  }

  @Test
  void refusesNvshmemUid() {
    int[] uid = new int[125];
    uid[0] = 65664;
    WorldException e = assertThrows(WorldException.class, () -> WorldUid.decode(uid));
    assertTrue(e.getMessage().contains("this uid is an NVSHMEM uid; the builtin engine needs a Tandem world uid")
        || e.getMessage().startsWith("this uid is an NVSHMEM uid"), e.getMessage());
    assertTrue(e.getMessage().contains("the builtin engine needs a Tandem world uid"), e.getMessage());
  }

  @Test
  void refusesDamage() throws Exception {
    int[] good = WorldUid.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000)).encode();
    assertThrows(WorldException.class, () -> WorldUid.decode(new int[124]));
    int[] unknown = good.clone();
    unknown[0] = 7;
    assertTrue(assertThrows(WorldException.class, () -> WorldUid.decode(unknown)).getMessage()
        .contains("unknown uid version 7"));
    int[] range = good.clone();
    range[10] = 200;
    assertTrue(assertThrows(WorldException.class, () -> WorldUid.decode(range)).getMessage()
        .contains("uid[10] = 200 is not a signed byte"));
    int[] family = good.clone();
    family[33] = 5;
    assertTrue(assertThrows(WorldException.class, () -> WorldUid.decode(family)).getMessage()
        .contains("address family"));
    int[] reserved = good.clone();
    reserved[124] = 1;
    assertTrue(assertThrows(WorldException.class, () -> WorldUid.decode(reserved)).getMessage()
        .contains("reserved uid[124]"));
    int[] port = good.clone();
    port[34] = 0;
    port[35] = 0;
    assertTrue(assertThrows(WorldException.class, () -> WorldUid.decode(port)).getMessage().contains("port 0"));
  }

  @Test
  void neverPrintsSecret() throws Exception {
    WorldUid uid = WorldUid.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000));
    assertEquals("WorldUid{root=127.0.0.1:4000}", uid.toString());
  }
}
