package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EntityTypeKeyTest {

  interface Command {}

  interface OtherCommand {}

  @Test
  void keepsNameAndMessageClass() {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Counter");
    assertEquals("Counter", key.name());
    assertSame(Command.class, key.messageClass());
  }

  @Test
  void acceptsEveryAllowedCharacter() {
    String name = "abcxyzABCXYZ0189-_.";
    assertEquals(name, EntityTypeKey.create(Command.class, name).name());
    assertEquals("a", EntityTypeKey.create(Command.class, "a").name());
    assertEquals(".-_", EntityTypeKey.create(Command.class, ".-_").name());
  }

  @Test
  void nullClassIsRejectedNamingTheType() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(null, "Counter"));
    assertEquals("EntityTypeKey.create(Counter): messageClass must not be null", e.getMessage());
  }

  @Test
  void nullOrEmptyNameIsRejectedNamingTheClass() {
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, null));
    assertEquals("EntityTypeKey.create(" + Command.class.getName() + "): name must not be null", none.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, ""));
    assertTrue(empty.getMessage().contains("non-empty type name"), empty.getMessage());
    assertTrue(empty.getMessage().contains(Command.class.getName()), empty.getMessage());
  }

  @Test
  void otherCharactersAreRejectedNamingCharacterAndIndex() {
    IllegalArgumentException slash = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, "Counter/1"));
    // Shown in full so users can find the offending name in their code.
    assertEquals("Entity type name [Counter/1] has the character '/' at index 7; "
        + "use letters, digits, '-', '_' and '.' only", slash.getMessage());

    IllegalArgumentException space = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, "my type"));
    assertTrue(space.getMessage().contains("' ' at index 2"), space.getMessage());

    // Non-ASCII letters would pass Character.isLetter but are not safe in actor names everywhere.
    IllegalArgumentException accent = assertThrows(IllegalArgumentException.class,
        () -> EntityTypeKey.create(Command.class, "café"));
    assertTrue(accent.getMessage().contains("'é' at index 3"), accent.getMessage());

    for (String bad : new String[] {"$Counter", "a:b", "a@b", "a#b", "a%2F", "a b", "tab\t", "ü", "a+b", "a*"}) {
      assertThrows(IllegalArgumentException.class, () -> EntityTypeKey.create(Command.class, bad), bad);
    }
  }

  @Test
  void keysWithTheSameNameAndClassAreEqual() {
    EntityTypeKey<Command> a = EntityTypeKey.create(Command.class, "Counter");
    EntityTypeKey<Command> b = EntityTypeKey.create(Command.class, "Counter");
    assertEquals(a, b);
    assertEquals(b, a);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(a, a);
  }

  @Test
  void keysDifferingInNameOrClassAreNotEqual() {
    EntityTypeKey<Command> counter = EntityTypeKey.create(Command.class, "Counter");
    assertNotEquals(counter, EntityTypeKey.create(Command.class, "counter"));
    assertNotEquals(counter, EntityTypeKey.create(Command.class, "Counter2"));
    assertNotEquals(counter, EntityTypeKey.create(OtherCommand.class, "Counter"));
    assertFalse(counter.equals(null));
    assertFalse(counter.equals("Counter"));
  }

  @Test
  void toStringNamesTypeAndClass() {
    String s = EntityTypeKey.create(Command.class, "Counter").toString();
    assertTrue(s.contains("Counter"), s);
    assertTrue(s.contains(Command.class.getName()), s);
  }
}
