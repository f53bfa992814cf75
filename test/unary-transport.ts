// The `integration-unary` project: the gRPC-facing suites again, every caller on plain unary calls (GRPC_TRANSPORT=unary).
process.env.SANDBOX_TEST_GRPC_TRANSPORT = 'unary';
