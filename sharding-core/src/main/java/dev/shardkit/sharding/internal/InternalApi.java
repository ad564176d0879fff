package dev.shardkit.sharding.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a type of shardkit's runtime that is public only because another shardkit package (or one
 * of shardkit's own modules) must reach it. It is not API: it may change or go in any release, and
 * code outside shardkit must not use it.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface InternalApi {}
