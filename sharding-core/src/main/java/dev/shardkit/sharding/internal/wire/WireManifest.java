package dev.shardkit.sharding.internal.wire;

import java.io.NotSerializableException;

/**
 * A manifest of shardkit's wire serializers ({@link ShardingSerializer}, {@link GateSerializer}):
 * the message type's code (letters) followed by the format version its bytes are laid out in, in
 * decimal: {@code DB1} is a delivery batch in format 1. A code without a version ({@code DB}) is
 * format 0, what shardkit wrote before its formats carried versions.
 *
 * <p>A reader reads every format version up to its own and refuses a newer one with
 * {@link #newerThan}, naming it, instead of misreading it. Changes that old readers can read
 * (fields appended where the format allows it) keep the version; only a change they cannot read
 * raises it.
 *
 * @param code the message type, e.g. {@code DB}
 * @param version the format version, 0 or more
 */
record WireManifest(String code, int version) {

  /** Splits a manifest into code and version; a version too large for an int counts as the largest. */
  static WireManifest parse(String manifest) {
    int end = manifest.length();
    int digits = end;
    while (digits > 0 && manifest.charAt(digits - 1) >= '0' && manifest.charAt(digits - 1) <= '9') {
      digits--;
    }
    if (digits == end) {
      return new WireManifest(manifest, 0);
    }
    long version = 0;
    for (int i = digits; i < end && version <= Integer.MAX_VALUE; i++) {
      version = version * 10 + (manifest.charAt(i) - '0');
    }
    return new WireManifest(manifest.substring(0, digits), (int) Math.min(version, Integer.MAX_VALUE));
  }

  /**
   * The error for a message of a format version above {@code current}.
   *
   * @param serializer the reading serializer and its id, e.g. {@code "ShardingSerializer (id 7241)"}
   */
  NotSerializableException newerThan(int current, String serializer, int length) {
    return new NotSerializableException("shardkit's " + serializer + " cannot read a message [" + code + "] of format "
        + "version " + version + " (" + length + " bytes): this shardkit reads format versions up to " + current
        + ". It was sent by a newer shardkit, which must keep writing format " + current + " until no node of this "
        + "version is left in the cluster");
  }
}
