package dev.shardkit.benchmarks.harness;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The report's chart: for every row that compares the libraries, how many times better shardkit
 * is than Pekko (whichever way the figure improves), as a bar from 1× on a log scale, with the
 * target marked. Java2D, headless.
 */
public final class Chart {
  private Chart() {}

  private static final int LABEL_W = 600;
  private static final int PLOT_W = 520;
  private static final int ROW_H = 26;
  private static final int TOP = 56;
  private static final double MIN = 0.1;
  private static final double MAX = 100;

  /** Writes the chart of {@code rows} (those with an advantage) as a PNG. */
  public static void write(List<Row> rows, String title, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Row> drawn = rows.stream().filter(r -> !Double.isNaN(r.advantage()) && !Double.isInfinite(r.advantage()))
        .toList();
    int width = LABEL_W + PLOT_W + 90;
    int height = TOP + ROW_H * Math.max(1, drawn.size()) + 60;
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(title, 12, 22);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.drawString("shardkit's advantage over Pekko's sharding (× better; right of 1× = shardkit better). "
          + "Black tick: target.", 12, 40);
      int plotBottom = TOP + ROW_H * drawn.size();
      for (double grid : new double[] {0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}) {
        int x = x(grid);
        g.setColor(grid == 1 ? Color.DARK_GRAY : new Color(225, 225, 225));
        g.drawLine(x, TOP - 4, x, plotBottom + 4);
        g.setColor(Color.DARK_GRAY);
        String label = grid < 1 ? String.format(Locale.ROOT, "%.1f×", grid) : String.format(Locale.ROOT, "%.0f×", grid);
        g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, plotBottom + 20);
      }
      for (int i = 0; i < drawn.size(); i++) {
        Row r = drawn.get(i);
        int y = TOP + i * ROW_H;
        g.setColor(Color.BLACK);
        String label = shorten(g, r.workload() + " — " + r.figure().replace("`", ""), LABEL_W - 20);
        g.drawString(label, 12, y + 17);
        double a = clamp(r.advantage());
        int x1 = x(1);
        int x2 = x(a);
        boolean met = r.verdict() != Row.Verdict.NOT_MET;
        g.setColor(a >= 1 ? (met ? new Color(46, 139, 87) : new Color(218, 165, 32)) : new Color(205, 92, 92));
        g.fillRect(Math.min(x1, x2), y + 5, Math.max(2, Math.abs(x2 - x1)), ROW_H - 10);
        if (!Double.isNaN(r.targetAdvantage())) {
          int xt = x(clamp(r.targetAdvantage()));
          g.setColor(Color.BLACK);
          g.setStroke(new BasicStroke(3));
          g.drawLine(xt, y + 2, xt, y + ROW_H - 2);
          g.setStroke(new BasicStroke(1));
        }
        g.setColor(Color.BLACK);
        g.drawString(Row.ratioText(r.advantage()), Math.max(x1, x2) + 6, y + 17);
      }
    } finally {
      g.dispose();
    }
    ImageIO.write(img, "png", png.toFile());
  }

  private static double clamp(double v) {
    return Math.max(MIN, Math.min(MAX, v));
  }

  private static int x(double v) {
    double f = (Math.log10(v) - Math.log10(MIN)) / (Math.log10(MAX) - Math.log10(MIN));
    return LABEL_W + (int) Math.round(f * PLOT_W);
  }

  private static String shorten(Graphics2D g, String s, int max) {
    if (g.getFontMetrics().stringWidth(s) <= max) {
      return s;
    }
    while (s.length() > 4 && g.getFontMetrics().stringWidth(s + "…") > max) {
      s = s.substring(0, s.length() - 1);
    }
    return s + "…";
  }
}
