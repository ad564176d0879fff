/** A tiny application on the module path: ModulePathTest compiles and runs it. */
module dev.shardkit.modulepathapp {
  requires dev.shardkit.sharding;
  requires dev.shardkit.sharding.ddata;
}
