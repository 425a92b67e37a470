import DemoData
import Foundation

/// What every bank's demo says of the account itself.
public enum DemoAccount {
    /// When the account was opened: the start of the day before the oldest thing it has (a
    /// payment or a saving), so a walk back through its history ends there.
    public static func openedAt(_ backend: DemoBackend) async -> Date {
        let dataset = await backend.dataset
        let oldest = ([dataset.transactions.last?.timestamp] + dataset.feeds.values.map { $0.map(\.timestamp).min() })
            .compactMap { $0 }.min() ?? dataset.now
        let day: TimeInterval = 86_400
        return Date(timeIntervalSince1970: ((oldest.timeIntervalSince1970 / day).rounded(.down) - 1) * day)
    }
}
