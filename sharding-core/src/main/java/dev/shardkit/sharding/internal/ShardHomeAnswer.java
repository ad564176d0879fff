package dev.shardkit.sharding.internal;

/**
 * What a region does with the coordinator's answer that a shard lives in some region. The answer
 * may be stale: a coordinator that has not yet heard of a region's death may still name it, and
 * while the link to a gone home is handing back its messages, those must reach the next home
 * before anything newer, so the region asks again later instead of believing it now. A shard
 * being handed off from here goes nowhere else until its move completes; but an answer naming
 * this region means the coordinator gave the move up. A shard hosted here stays here whatever an
 * answer says (the coordinator cannot move it without a hand-off). Pure.
 */
final class ShardHomeAnswer {

  /** What to do with the answer. */
  sealed interface Decision {}

  /** Do not believe it now, because {@code why}; the home is asked for again later. */
  record Ignore(String why) implements Decision {}

  /**
   * The shard lives in this region: start it unless it runs here. {@code resume}: its hand-off
   * was given up, so the shard that was being handed off stays and takes messages again.
   */
  record HostHere(boolean resume) implements Decision {}

  /** This region was named, but it is proxy-only and never hosts. */
  record CannotHost() implements Decision {}

  /** Another region was named, but the shard runs here: it stays here. */
  record HostedHereAlready() implements Decision {}

  /** The shard lives in the named region. */
  record LivesThere() implements Decision {}

  private ShardHomeAnswer() {}

  /**
   * @param regionDead the named region has been seen terminated
   * @param oldHomeClosing the shard's known home is a region that is gone, whose link has not
   *     handed back yet
   * @param handingOff the shard is being handed off from this region
   * @param namesThisRegion the answer names this region
   * @param hostedHere the shard runs in this region now
   */
  static Decision decide(boolean regionDead, boolean oldHomeClosing, boolean handingOff, boolean namesThisRegion,
      boolean proxyOnly, boolean hostedHere) {
    if (regionDead) {
      return new Ignore("that region is gone; asking again later");
    }
    if (oldHomeClosing) {
      return new Ignore("the old home's link is not closed yet");
    }
    if (handingOff && !namesThisRegion) {
      return new Ignore("the shard is being handed off");
    }
    if (namesThisRegion) {
      return proxyOnly ? new CannotHost() : new HostHere(handingOff);
    }
    return hostedHere ? new HostedHereAlready() : new LivesThere();
  }
}
