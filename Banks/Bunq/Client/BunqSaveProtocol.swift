import FeedModel
import Foundation

/// Saving a week once without an idempotency key (docs/roundups.md, "bunq"), its steps apart
/// from bunq's HTTP so the save protocol's model runs the same code:
///
/// 1. look for the mark in the main account's payments: found → nothing is sent;
/// 2. send; an answer that is lost (no answer, 5xx, 429, an answer that does not verify) is
///    never sent again blindly: wait, look again; found → done; not found → send once more;
/// 3. after sending, look once more: two marked payments mean two runs raced.
public enum BunqSaveProtocol {
    public enum Outcome: Equatable, Sendable {
        /// The mark was there before sending (the earliest found payment's time): nothing sent.
        case foundBefore(Date?)
        /// Sent (or found sent after a lost answer); how many marked payments the last look found.
        case sent(markedAfter: Int)
    }

    public static func run(find: () async throws -> [Date?], send: () async throws -> Void, isLost: (any Error) -> Bool,
                           wait: () async -> Void) async throws -> Outcome {
        let before = try await find()
        if !before.isEmpty { return .foundBefore(before.compactMap { $0 }.min()) }
        var attempts = 0
        while true {
            attempts += 1
            do {
                try await send()
                break
            } catch {
                guard isLost(error) else { throw error }
                // The payment may or may not exist: look again before anything else.
                await wait()
                if try await afterSending({ try await find() }).isEmpty == false { break }
                if attempts >= 2 { throw mayHaveMoved(error) }
            }
        }
        return .sent(markedAfter: max(1, try await afterSending({ try await find() }).count))
    }

    /// A look made after a payment was sent: if it fails, the payment may exist all the same.
    private static func afterSending<T>(_ look: () async throws -> T) async throws -> T {
        do {
            return try await look()
        } catch {
            throw mayHaveMoved(error)
        }
    }

    /// `error`, said as what it is after a payment was sent: the payment may have been made.
    static func mayHaveMoved(_ error: any Error) -> APIError { .afterSending(error, "the payment") }

    /// What the app and the command say when two runs raced (never moved back automatically).
    public static func twiceMessage(extra: Money, goal: String) -> String {
        "saved twice by two runs at once: move \(extra.formatted) back from \(goal) in the bunq app"
    }
}
