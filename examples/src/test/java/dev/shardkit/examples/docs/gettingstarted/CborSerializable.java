package dev.shardkit.examples.docs.gettingstarted;

// docs:start marker
public interface CborSerializable {}
// docs:end marker
