package dev.shardkit.sharding.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;

/**
 * Golden files of a stored or wire format: the bytes a shardkit build wrote for a set of sample
 * values, committed as test resources so that every later build can check it still reads them.
 *
 * <p>Layout: {@code <format>/v<N>/} per format version N, holding one file per sample and
 * {@code manifests.properties}, which maps each file name to the serializer manifest it was
 * written under. A version's directory, once committed, is never rewritten.
 *
 * <p>(sharding-core's own wire formats keep the same layout with a helper of their own, since
 * sharding-core's tests cannot depend on this module.)
 */
public final class GoldenFiles {
  private static final String MANIFESTS = "manifests.properties";

  /** A value to write, and the name of its file (with extension, e.g. {@code Region.bin}). */
  public record Sample(String file, Object value) {}

  /** A golden file as read back: its name, the manifest it was written under, its bytes. */
  public record Stored(String file, String manifest, byte[] bytes) {}

  private GoldenFiles() {}

  /** A test-resource directory of {@code anchor}'s class path, e.g. {@code "/golden/ddata"}. */
  public static Path resource(Class<?> anchor, String directory) {
    URL url = anchor.getResource(directory);
    if (url == null) {
      throw new IllegalStateException("no golden files at " + directory + " on the test class path");
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The version directories ({@code v<N>}) of a format, oldest first. */
  public static List<Path> versions(Path format) {
    try (Stream<Path> dirs = Files.list(format)) {
      return dirs.filter(d -> Files.isDirectory(d) && d.getFileName().toString().matches("v\\d+"))
          .sorted(Comparator.comparingInt(d -> Integer.parseInt(d.getFileName().toString().substring(1))))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every golden file of one version directory, in file-name order. */
  public static List<Stored> read(Path version) {
    Properties manifests = new Properties();
    try (InputStream in = Files.newInputStream(version.resolve(MANIFESTS))) {
      manifests.load(in);
      List<Stored> stored = new ArrayList<>();
      for (String file : manifests.stringPropertyNames().stream().sorted().toList()) {
        stored.add(new Stored(file, manifests.getProperty(file), Files.readAllBytes(version.resolve(file))));
      }
      return stored;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes each sample as {@code system}'s serialization writes it (the serializer bound to its
   * class) into {@code version}, with {@code manifests.properties}.
   */
  public static void write(Path version, ActorSystem<?> system, List<Sample> samples) throws IOException {
    Files.createDirectories(version);
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    StringBuilder lines = new StringBuilder("# Each sample's file and the manifest it was written under.\n");
    for (Sample sample : samples) {
      Serializer serializer = serialization.findSerializerFor(sample.value());
      Files.write(version.resolve(sample.file()), serializer.toBinary(sample.value()));
      lines.append(sample.file()).append('=').append(Serializers.manifestFor(serializer, sample.value())).append('\n');
    }
    Files.writeString(version.resolve(MANIFESTS), lines);
  }

  /**
   * Reads a golden file back through {@code system}'s serialization, with the serializer that
   * {@code expected}'s class is bound to.
   */
  public static Object deserialize(ActorSystem<?> system, Object expected, Stored stored) {
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    int id = serialization.findSerializerFor(expected).identifier();
    return serialization.deserialize(stored.bytes(), id, stored.manifest()).get();
  }
}
