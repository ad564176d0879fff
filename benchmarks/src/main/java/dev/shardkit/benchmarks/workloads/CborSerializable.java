package dev.shardkit.benchmarks.workloads;

/** Marks the workloads' messages for Jackson CBOR (bound in the benchmark nodes' configuration). */
public interface CborSerializable {}
