package dev.shardkit.sharding.testsupport;

import java.io.NotSerializableException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * A seeded, reproducible fuzzer for a serializer's {@code fromBinary}: it feeds it mutations of
 * valid messages (bit flips, truncations, insertions, deletions, duplicated runs, and length
 * fields replaced by small, large and huge varints) and random bytes, under every manifest the
 * serializer reads, and collects every input on which anything but a
 * {@link NotSerializableException} or a message with all its required fields came out, or on
 * which one call allocated more
 * than a bound proportional to the input: a corrupt length must never make a reader allocate what
 * the bytes cannot hold.
 *
 * <p>The seed is printed; set the system property {@value #SEED_PROPERTY} to run the same inputs
 * again, and {@value #INPUTS_PROPERTY} to run more (or fewer) inputs than a test's CI default.
 */
public final class SerializerFuzz {
  /** The system property that fixes the seed. */
  public static final String SEED_PROPERTY = "shardkit.fuzz.seed";
  /** The system property that replaces a test's number of inputs, for a longer run outside CI. */
  public static final String INPUTS_PROPERTY = "shardkit.fuzz.inputs";
  /**
   * What one call may allocate beyond {@link #BYTES_PER_INPUT_BYTE} per input byte: resolving an
   * actor ref and deserializing a payload through Pekko allocate a little whatever the input.
   */
  static final long FIXED_ALLOCATION = 4L << 20;
  static final long BYTES_PER_INPUT_BYTE = 256;

  /** A valid message: its manifest and bytes, the starting point of mutations. */
  public record Golden(String manifest, byte[] bytes) {}

  /** An input on which the serializer broke its promise. */
  public record Failure(long iteration, String manifest, byte[] input, String what) {
    @Override
    public String toString() {
      return "input " + iteration + " [" + manifest + "] " + HexFormat.of().formatHex(input) + ": " + what;
    }
  }

  /** What a run did. */
  public record Report(long seed, int inputs, int refused, int read, List<Failure> failures) {}

  private SerializerFuzz() {}

  /** The seed from {@value #SEED_PROPERTY}, or a new one; printed either way, naming the test. */
  public static long seed(String test) {
    String fixed = System.getProperty(SEED_PROPERTY);
    long seed = fixed != null ? Long.parseLong(fixed) : new SplittableRandom().nextLong();
    System.out.println(test + ": fuzzing with seed " + seed + " (run again with -D" + SEED_PROPERTY + "=" + seed + ")");
    return seed;
  }

  /** {@code ciDefault}, unless {@value #INPUTS_PROPERTY} says how many inputs to run. */
  public static int inputs(int ciDefault) {
    String inputs = System.getProperty(INPUTS_PROPERTY);
    return inputs != null ? Integer.parseInt(inputs) : ciDefault;
  }

  /**
   * Runs {@code inputs} inputs, each under one of {@code manifests} (in turn, so every manifest
   * gets its share), seven in eight a mutation of one of {@code goldens}, the rest random bytes.
   *
   * @param check what is wrong with a message that was read (a missing required field), or empty
   */
  public static Report run(SerializerWithStringManifest serializer, List<Golden> goldens, List<String> manifests,
      Function<Object, Optional<String>> check, long seed, int inputs) {
    SplittableRandom random = new SplittableRandom(seed);
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    List<Failure> failures = new ArrayList<>();
    int refused = 0;
    int read = 0;
    for (int i = 0; i < inputs; i++) {
      String manifest = manifests.get(i % manifests.size());
      byte[] input;
      if (random.nextInt(8) == 0) {
        input = new byte[random.nextInt(64)];
        random.nextBytes(input);
      } else {
        // A golden of this manifest's message most of the time, any golden otherwise.
        List<Golden> same = goldens.stream().filter(g -> g.manifest().equals(manifest)).toList();
        List<Golden> from = same.isEmpty() || random.nextInt(4) == 0 ? goldens : same;
        input = mutate(from.get(random.nextInt(from.size())).bytes(), random);
      }
      long iteration = i;
      long before = threads.getThreadAllocatedBytes(thread);
      try {
        Object message = serializer.fromBinary(input, manifest);
        read++;
        Optional<String> problem = message == null ? Optional.of("null") : check.apply(message);
        problem.ifPresent(p -> failures.add(new Failure(iteration, manifest, input, "read a message with " + p)));
      } catch (NotSerializableException e) {
        refused++;
        if (e.getMessage() == null || e.getMessage().isEmpty()) {
          failures.add(new Failure(i, manifest, input, "a NotSerializableException without a message"));
        }
      } catch (Throwable t) {
        failures.add(new Failure(i, manifest, input, t.toString()));
      }
      long allocated = threads.getThreadAllocatedBytes(thread) - before;
      long bound = FIXED_ALLOCATION + BYTES_PER_INPUT_BYTE * input.length;
      if (allocated > bound) {
        failures.add(new Failure(i, manifest, input, "allocated " + allocated + " bytes, more than " + bound));
      }
    }
    return new Report(seed, inputs, refused, read, failures);
  }

  /** One to three mutations of {@code golden}. */
  static byte[] mutate(byte[] golden, SplittableRandom random) {
    byte[] b = golden.clone();
    int rounds = 1 + random.nextInt(3);
    for (int r = 0; r < rounds; r++) {
      b = mutateOnce(b, random);
    }
    return b;
  }

  private static byte[] mutateOnce(byte[] b, SplittableRandom random) {
    int at = b.length == 0 ? 0 : random.nextInt(b.length);
    switch (random.nextInt(7)) {
      case 0: { // bit flip
        if (b.length > 0) {
          b[at] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
      }
      case 1: // truncation
        return Arrays.copyOf(b, b.length == 0 ? 0 : random.nextInt(b.length));
      case 2: { // insertion of random bytes
        byte[] extra = new byte[1 + random.nextInt(8)];
        random.nextBytes(extra);
        return splice(b, at, 0, extra);
      }
      case 3: // deletion
        return b.length == 0 ? b : splice(b, at, 1 + random.nextInt(Math.min(8, b.length - at)), new byte[0]);
      case 4: { // a run duplicated
        int length = b.length == 0 ? 0 : 1 + random.nextInt(Math.min(16, b.length - at));
        return splice(b, at, 0, Arrays.copyOfRange(b, at, at + length));
      }
      default: { // a length field (a varint) replaced by another length, from 0 to huge
        byte[][] lengths = {{0}, {1}, {(byte) 0x7F}, {(byte) 0xFF, 0x7F}, {(byte) 0xFF, (byte) 0xFF, 0x03},
            {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}, {(byte) 0xFE, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, 0x0F}, {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01}};
        int old = 1;
        while (at + old - 1 < b.length && (b[at + old - 1] & 0x80) != 0 && old < 5) {
          old++;
        }
        return splice(b, at, Math.min(old, b.length - at), lengths[random.nextInt(lengths.length)]);
      }
    }
  }

  private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
    byte[] out = new byte[b.length - remove + insert.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(insert, 0, out, at, insert.length);
    System.arraycopy(b, at + remove, out, at + insert.length, b.length - at - remove);
    return out;
  }
}
