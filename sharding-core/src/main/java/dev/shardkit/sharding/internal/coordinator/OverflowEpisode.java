package dev.shardkit.sharding.internal.coordinator;

/**
 * The requests a bounded queue of the coordinator refused because it was full, counted, with one
 * warning per episode: an episode starts with the first refusal and lasts until the queue has room
 * again and says so ({@link #roomAgain()}). A region asks again every retry interval, so during an
 * outage the same requests are refused over and over; warning once per episode keeps the log
 * readable while the count keeps every refusal visible. Owned by the coordinator actor; not
 * thread-safe.
 */
final class OverflowEpisode {
  private long total;
  private long inEpisode;

  /**
   * A request was refused.
   *
   * @return true if it is the first of its episode: warn now (and not again until
   *     {@link #roomAgain()})
   */
  boolean refused() {
    total++;
    return ++inEpisode == 1;
  }

  /**
   * The queue has room again: the episode, if any, is over; the next refusal warns.
   *
   * @return how many requests the episode that ended refused (0 if none was going on)
   */
  long roomAgain() {
    long ended = inEpisode;
    inEpisode = 0;
    return ended;
  }

  /** Every request refused so far, over all episodes. */
  long total() {
    return total;
  }
}
