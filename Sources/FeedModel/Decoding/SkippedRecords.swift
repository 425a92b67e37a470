import Foundation

/// Notes about records that were skipped while decoding (a goal whose target cannot be money,
/// an activity without a user), kept until the app shows them in the status bar.
///
/// One bad record never hides the others: lists are decoded record by record (`LossyList`),
/// and what could not be read is named here, once per answer.
public final class SkippedRecords: Sendable {
    private let notes = MutexBox<[String]>([])
    /// Every skipped record on its own (`GET /feed…: [3].amount: … (id 7)`), once each, for the
    /// headless commands, which name each on stderr; at most `recordLimit` kept between drains.
    private let records = MutexBox(Records())

    /// The records kept between two `drainRecords()` (the app never drains them: bounded).
    public static let recordLimit = 1_000

    struct Records {
        var pending: [String] = []
        var named: Set<String> = []
        var dropped = 0
    }

    public init() {}

    func add(_ note: String) {
        notes.update { $0.append(note) }
    }

    /// Keeps each record of one answer: "`resource`: `reason`", each record once however many
    /// answers held it (the same reason and id at another place of another window is the same record).
    func addEach(resource: String, reasons: [String]) {
        guard !reasons.isEmpty else { return }
        records.update { records in
            for reason in reasons {
                let key = reason.replacing(/\[[0-9]+\]/, with: "[]")
                guard !records.named.contains(key) else { continue }
                if records.pending.count >= SkippedRecords.recordLimit {
                    records.dropped += 1
                    continue
                }
                if records.named.count >= 10 * SkippedRecords.recordLimit { records.named = [] }
                records.named.insert(key)
                records.pending.append(resource + ": " + reason)
            }
        }
    }

    /// Records a source held back on purpose (past a page limit), named like a skipped record:
    /// `resource: what was left out`, in the status bar and on a headless command's stderr.
    public func leftOut(resource: String, _ what: String) {
        let resource = TextSanitizer.clean(resource)
        let what = TextSanitizer.clean(what)
        add("\(resource): \(what)")
        addEach(resource: resource, reasons: [what])
    }

    /// Whether a record was skipped since the last `drainRecords()`.
    public var hasRecords: Bool {
        var any = false
        records.update { any = !$0.pending.isEmpty || $0.dropped > 0 }
        return any
    }

    /// Each record skipped since the last call, oldest first, and how many more were not kept.
    public func drainRecords() -> (records: [String], more: Int) {
        var drained = Records()
        records.update { records in
            drained = records
            records.pending = []
            records.dropped = 0
        }
        return (drained.pending, drained.dropped)
    }

    /// Maps records that decoded into model values one by one: a record that does not fit the
    /// model (an amount out of range, a currency that is not ISO) is stepped over and named,
    /// one note for the whole answer, like a record that could not be decoded at all.
    public func mapEach<Record, Value>(_ records: [Record], resource: String, name: (Record) -> String,
                                       _ transform: (Record) throws(MalformedPayload) -> Value) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(records.count)
        var reasons: [String] = []
        for (index, record) in records.enumerated() {
            do {
                values.append(try transform(record))
            } catch {
                reasons.append("[\(index)].\(error.resource): \(error.reason) (\(TextSanitizer.clean(String(name(record).prefix(40)))))")
            }
        }
        if let note = SkippedRecords.note(resource: TextSanitizer.clean(resource), reasons: reasons) { add(note) }
        addEach(resource: TextSanitizer.clean(resource), reasons: reasons)
        return values
    }

    /// The notes since the last call, oldest first.
    public func drain() -> [String] {
        var drained: [String] = []
        notes.update { swap(&$0, &drained) }
        return drained
    }

    /// One line for a whole answer: "GET /savingsgoals: skipped 1 bad record (savingsGoals[2]…)".
    static func note(resource: String, reasons: [String]) -> String? {
        guard let first = reasons.first else { return nil }
        let count = reasons.count
        return "\(resource): skipped \(count) bad \(count == 1 ? "record" : "records") (\(first))"
    }
}

extension CodingUserInfoKey {
    /// Where `LossyList` notes what it skipped during one `PayloadDecoder.decode`.
    static let skippedRecords = CodingUserInfoKey(rawValue: "qapital.skippedRecords")!
}

/// A JSON array read record by record: a record that cannot be read (a missing key, a wrong
/// type, a number that cannot be represented) is stepped over and its reason noted, with its
/// place and, where it has one, its id: `savingsGoals[2].targetAmount: … (id 7)`.
public struct LossyList<Element: Decodable>: Decodable {
    public var elements: [Element] = []
    public var skipped: [String] = []

    public init(from decoder: Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let sink = decoder.userInfo[.skippedRecords] as? SkippedRecords
        while !container.isAtEnd {
            let index = container.currentIndex
            do {
                elements.append(try container.decode(Element.self))
            } catch {
                let place = PayloadDecoder.path(decoder.codingPath) + "[\(index)]"
                // Step over the bad record, reading what names it on the way.
                let label = (try? container.decode(RecordLabel.self))?.text
                if container.currentIndex == index { _ = try? container.decodeNil() }
                if container.currentIndex == index {
                    // The record could not even be stepped over: the rest cannot be read either.
                    throw error
                }
                let note = PayloadDecoder.explain(error, place: place) + (label.map { " (\($0))" } ?? "")
                skipped.append(note)
                sink?.add(note)
            }
        }
    }
}

/// What names a record in a note: its id (`id`, Starling's `…Uid`), else its time.
struct RecordLabel: Decodable {
    let text: String?

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let names: [(key: String, label: String)] = [
        ("id", "id"), ("feedItemUid", "id"), ("savingsGoalUid", "id"), ("accountUid", "id"), ("userId", "userId"),
        ("timestamp", "at"), ("transactionTime", "at"),
    ]

    init(from decoder: Decoder) throws {
        guard let container = try? decoder.container(keyedBy: Key.self) else {
            text = nil
            return
        }
        func value(_ key: String) -> String? {
            let key = Key(stringValue: key)
            if let number = try? container.decode(Int.self, forKey: key) { return String(number) }
            if let string = try? container.decode(String.self, forKey: key) { return TextSanitizer.clean(String(string.prefix(40))) }
            return nil
        }
        text = Self.names.lazy.compactMap { name in value(name.key).map { "\(name.label) \($0)" } }.first
    }
}

extension KeyedDecodingContainer {
    /// A list that may be missing or null (then empty), read record by record.
    func lossyListIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> [T] {
        try decodeIfPresent(LossyList<T>.self, forKey: key)?.elements ?? []
    }
}
