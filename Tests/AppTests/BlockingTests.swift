import Testing

/// Suites whose tests wait on a child process or a raw socket by blocking their thread (poll
/// with a deadline). They run one at a time under this parent: the cooperative pool has one
/// thread a core (two here), and two blocked threads would starve every other test, and the
/// in-process servers' handlers with them.
@Suite(.serialized) struct BlockingTests {}
