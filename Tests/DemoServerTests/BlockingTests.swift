import Testing

/// Suites that block a thread on a raw socket (poll with a deadline) run one at a time under
/// this parent, as in AppTests: the cooperative pool has one thread a core (two here), and two
/// blocked threads would starve every other test, and the in-process servers' handlers with them.
@Suite(.serialized) struct BlockingTests {}
