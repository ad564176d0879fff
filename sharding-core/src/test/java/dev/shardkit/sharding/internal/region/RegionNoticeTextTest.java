package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The region's log lines that operators and cluster tests read, rendered from its notices. */
class RegionNoticeTextTest {

  @Test
  void theUpFrontLine() {
    assertEquals("Region pekko://S@h:1/system/shardkit-region-T was told 10 home(s) placed up front at term 3: it "
        + "learned 7 in other regions and 3 here",
        RegionNotice.toldUpFront("pekko://S@h:1/system/shardkit-region-T", 10, 3, 7, 3).render());
  }

  @Test
  void aFailedHandlerNamesTheCauseAndKeepsItAsTheThrowable() {
    IOException cause = new IOException("the extractor fails");
    RegionNotice notice = RegionNotice.handlerFailed("T", "a message of type x.Y", cause);
    String line = notice.render();
    assertTrue(line.startsWith("Entity type [T]: region failed handling a message of type x.Y"), line);
    assertTrue(line.contains("IOException") && line.contains("keeps routing"), line);
    assertSame(cause, notice.args()[notice.args().length - 1], "logged as the cause, as SLF4J takes a last throwable");
  }

  @Test
  void theLinesClusterTestsWaitFor() {
    assertEquals("Entity type [T]: region shut down gracefully", RegionNotice.shutDown("T").render());
    assertEquals("Entity type [T]: node pekko://S@h:2 is unreachable; messages for its 2 shard(s) are held",
        RegionNotice.node("T", "pekko://S@h:2", "unreachable; messages for its 2 shard(s) are held").render());
    assertTrue(RegionNotice.goneWithoutAcknowledging("T", "r", 4).render()
        .startsWith("Entity type [T]: region r is gone without acknowledging 4 message(s)"));
    assertEquals("Entity type [T]: region shutting down; handing off 5 shard(s)",
        RegionNotice.shuttingDown("T", 5).render());
  }
}
