package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.wire.ShardingProtocol;

/**
 * Whether a region believes what its coordinator tells it of a shard's home: an answer for one
 * shard ({@link ShardingProtocol.ShardHome}) or homes placed up front, told many at once
 * ({@link ShardingProtocol.ShardHomes}); one rule for both. The answer
 * may be stale: a coordinator that has not yet heard of a region's death may still name it, and
 * while the link to a gone home is handing back its messages, those must reach the next home
 * before anything newer, so the region asks again later instead of believing it now. A shard
 * being handed off from here goes nowhere else until its move completes; but an answer naming
 * this region means the coordinator gave the move up. A shard hosted here stays here whatever an
 * answer says (the coordinator cannot move it without a hand-off). A home placed up front only
 * fills in what the region does not know: it never replaces a known home, never ends a hand-off,
 * and is not reported when it is not believed (a placement tells thousands). Pure.
 */
final class HomeBelief {

  /** How the home was told. */
  enum Told {
    /** In answer to the region, or after a move: the coordinator's current word on the shard. */
    ANSWER,
    /** Among the homes placed up front: what the region knows already stands. */
    UP_FRONT
  }

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

  private HomeBelief() {}

  /**
   * @param told how the home was told
   * @param known the region knows a home for the shard (here or elsewhere)
   * @param regionDead the named region has been seen terminated, or is on a node that is not a
   *     member in this node's view
   * @param oldHomeClosing the shard's known home is a region that is gone, whose link has not
   *     handed back yet
   * @param handingOff the shard is being handed off from this region
   * @param namesThisRegion the answer names this region
   * @param hostedHere the shard runs in this region now
   */
  static Decision decide(Told told, boolean known, boolean regionDead, boolean oldHomeClosing, boolean handingOff,
      boolean namesThisRegion, boolean proxyOnly, boolean hostedHere) {
    if (told == Told.UP_FRONT) {
      if (known || handingOff) {
        return new Ignore("the region knows where the shard is already");
      }
      if (namesThisRegion && proxyOnly) {
        return new Ignore("a proxy-only region never hosts");
      }
    }
    if (regionDead) {
      return new Ignore("that region is gone, or on a node this one does not know as a member; asking again later");
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
