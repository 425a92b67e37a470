import FeedModel
import Foundation

/// Records the source skipped (an amount past the app's bound, an item that cannot be read):
/// each named on stderr once, and the run's status says so (docs/cli.md, "Exit statuses").
extension CommandContext {
    /// Runs a command's body, then names each record the source skipped on the way and exits 3
    /// ("done, with records skipped") when there was one. With `strict`, stdout is held until the
    /// end and a skipped record fails the run (status 1) with nothing written.
    public func reportingSkips(_ body: () async throws -> Void) async throws {
        if strict { output.hold() }
        do {
            try await body()
        } catch {
            _ = nameSkipped()
            if strict { output.discard() }
            throw error
        }
        let count = nameSkipped()
        guard count > 0 else {
            if strict { output.release() }
            return
        }
        let records = count == 1 ? "1 record" : "\(count) records"
        if strict {
            output.discard()
            throw CommandFailure(.failed, "--strict: the source sent \(records) that could not be read (named above); nothing written")
        }
        output.flush()
        throw CommandFailure(.skipped, "done, with \(records) skipped (named above)")
    }

    /// With `strict`, fails when a record was skipped so far: before money moves on a partial read.
    public func refuseSkipsIfStrict() throws(CommandFailure) {
        guard strict, skipped?.hasRecords == true else { return }
        throw CommandFailure(.failed, "--strict: the source sent records that could not be read; nothing moved")
    }

    /// Names each record skipped since the last call on stderr; how many there were.
    func nameSkipped() -> Int {
        guard let skipped else { return 0 }
        let (records, more) = skipped.drainRecords()
        for record in records { note("skipped a record from \(sourceKind): \(record)") }
        if more > 0 { note("skipped \(more) more \(more == 1 ? "record" : "records") from \(sourceKind) (not named)") }
        return records.count + more
    }
}
