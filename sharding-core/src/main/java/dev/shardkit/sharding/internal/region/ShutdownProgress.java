package dev.shardkit.sharding.internal.region;

/**
 * How far a region shutting down gracefully has come. It may stop only once it hosts nothing,
 * hands nothing off and holds nothing, and once what its links sent to other regions has been
 * acknowledged, so that nothing it accepted is lost with it. Pure.
 */
enum ShutdownProgress {
  /** Shards are still hosted or handed off here, or messages held. */
  HANDING_OFF,
  /** Everything is handed off; some link has not yet had everything acknowledged. */
  LINKS_DRAINING,
  /** The region may stop. */
  DONE;

  /**
   * @param hosted shards hosted here
   * @param handingOff whether some shard is being handed off from here
   * @param held messages held for shards whose home is not known
   * @param linksNotFlushed links that have not answered a flush asked after the last message the
   *     region handed them: they may still carry messages not acknowledged yet
   */
  static ShutdownProgress of(int hosted, boolean handingOff, int held, int linksNotFlushed) {
    if (hosted > 0 || handingOff || held > 0) {
      return HANDING_OFF;
    }
    return linksNotFlushed > 0 ? LINKS_DRAINING : DONE;
  }
}
