import FeedModel
import Foundation

/// `qapital-tui activity` and `qapital-tui export`: the activity feed, newest first, written one
/// two-week window at a time as each arrives (memory holds one window and the ids seen, however long the history).
public enum ActivityExport {
    public enum Kind: String, Sendable { case activity, export }

    /// The longest window an empty stretch grows to (a year of two-week windows): what one
    /// answer can hold stays bounded, and a long empty stretch takes few requests.
    public static let longestWindow = ActivityPager.windowLength * Double(ActivityPager.defaultEmptyWindowLimit)

    /// No walk without `--since` reaches before this, whatever the source says (no account's
    /// history begins before 1970; a source that says year 1 must not cost thousands of requests).
    public static let earliest = Date(timeIntervalSince1970: 0)

    /// What was written: rows, and the sums per goal name (nil key: no goal) for checking.
    public struct Totals: Sendable {
        public var rows = 0
        public var perGoal: [String: Money] = [:]
        public var total: Money?
        public var overflowed = false
        /// With `export --new`: what the next `--new` run starts after (nil: nothing written yet).
        public var mark: ExportMark?
    }

    /// `new`: `export --new`, writing only rows after `mark` (what an earlier `--new` run wrote);
    /// the totals then carry the mark for the next run, which the caller keeps (`ExportMarkFile`).
    @discardableResult
    public static func run(_ context: CommandContext, kind: Kind, since: Date?, until: Date?, goal: String?,
                           new: Bool = false, mark: ExportMark? = nil) async throws -> Totals {
        var tracker = ExportMark.Tracker(new ? mark : nil)
        // Rows at the mark's own time are walked again (those not written before are written).
        let marked = new ? mark?.newest : nil
        let start = [since, marked].compactMap { $0 }.max()
        let goals = try await context.api.goals()
        let chosen = try goal.map { text throws(CommandFailure) in try CommandContext.goal(text, in: goals) }
        // Without --until: a day past now, as the app's newest window, so rows a server stamps
        // ahead of our clock are kept.
        let now = context.now()
        let untilGiven = until
        let until = until ?? ActivityPager.newestEnd(now)
        if let since, since >= until { throw CommandFailure(.usage, "--since must be before --until") }
        // `activity` without --since: the last two weeks; `export`: everything.
        let since = start ?? (kind == .activity ? ActivityPager.anchor(now).addingTimeInterval(-ActivityPager.windowLength) : nil)
        var writer = Writer(context: context, goals: goals, kind: kind)
        // Appending (`--new` after an earlier run): no second CSV header.
        writer.begin(header: marked == nil || context.format != .csv)
        context.output.flush()
        if let since, since >= until {
            // `--new` and nothing can be newer than what was written before `--until`.
            writer.end()
            context.output.flush()
            var totals = writer.totals
            totals.mark = mark
            return totals
        }
        // `export` says where it stopped and why (stderr); `activity` is two weeks unless told.
        let sinceLabel = since == marked && marked != nil ? "--new: the newest row exported before" : "--since"
        let stop = try await walk(context.api, since: since, until: until, sinceLabel: sinceLabel,
                                  note: kind == .export ? context.note : { _ in }) { window in
            for activity in window {
                let owner = GoalMatch.goal(of: activity, in: goals)
                if let chosen, owner?.id != chosen.id { continue }
                // Booked rows only in a journal: a pending one is counted, and left for the
                // export that finds it booked (not marked written for `--new`).
                if writer.leavesOut(activity) { continue }
                if new {
                    if tracker.written(activity) { continue }
                    tracker.wrote(activity)
                }
                writer.write(activity, goal: owner)
            }
            // Each window reaches stdout before the next is asked for; none is asked for nobody.
            context.output.flush()
            try context.output.checkReader()
        }
        // A whole account's journal (not one goal's, not up to --until, not appended to an
        // earlier one) opens with what the source's balance leaves before its first row: each
        // account's on its own where the source says them one by one (Enable Banking), else the
        // source's one balance. A journal that later `--new` runs append to gets no assertion: a
        // row the bank lists late, dated before it, would make hledger refuse the file. A `--new`
        // run opens only with a row written: its mark then says the journal was opened (with
        // none, no mark is kept and the next run would open it again).
        if kind == .export, context.format == .ledger, chosen == nil, untilGiven == nil, marked == nil, !new || tracker.result != nil {
            let balances = context.bookedBalances?() ?? []
            if !balances.isEmpty {
                writer.writeOpenings(balances, stop: stop, now: now, asserted: !new)
            } else if context.api.saysFeedBalance, let balance = try? await context.api.account()?.feedBalance {
                writer.writeOpening(balance, stop: stop, now: now, asserted: !new)
            }
        }
        if writer.pendingLeftOut > 0 {
            let rows = writer.pendingLeftOut == 1 ? "1 pending row" : "\(writer.pendingLeftOut) pending rows"
            context.note("\(rows) left out: the journal has booked rows only")
        }
        writer.end()
        context.output.flush()
        var totals = writer.totals
        if new { totals.mark = tracker.result }
        return totals
    }

    /// Walks `[since, until)` back in windows, newest first: two weeks each, growing (doubling,
    /// up to `longestWindow`) over a stretch without activity and back to two weeks at the next
    /// row. Without `since` it stops only where the source says the history begins (`oldest`: the
    /// account's opening for a bank), or at `earliest`. Each window's activities, newest first,
    /// each id once over the whole walk (as the app's pager does: look-alikes with their own ids
    /// are all kept; the ids seen are the only thing kept across windows), go to `each` before
    /// the next window is asked for; `note` says where the walk stopped and why.
    /// Returns where it stopped (what `note` says): every row it read is at or after it.
    @discardableResult
    public static func walk(_ api: any SavingsAPI, since: Date?, until: Date, sinceLabel: String = "--since",
                            note: @Sendable (String) -> Void = { _ in },
                            each: ([Activity]) async throws -> Void) async throws -> Date {
        var to = until
        var length = ActivityPager.windowLength
        var seen = Set<String>()
        while true {
            var from = to.addingTimeInterval(-length)
            if let since, from < since { from = since }
            if since == nil, from < earliest { from = earliest }
            let page = try await api.activities(from: from, to: to)
            let rows = page.activities
                .filter { $0.timestamp >= from && $0.timestamp < to }
                .sorted { $0.timestamp > $1.timestamp }
                .filter { seen.insert($0.id).inserted }
            try await each(rows)
            if let since, from <= since {
                note("export stopped at \(Cell.isoTime(since)) (\(sinceLabel))")
                return since
            }
            if from <= page.oldest {
                note("export stopped at \(Cell.isoTime(page.oldest)), where the source says the history begins")
                return page.oldest
            }
            if from <= earliest {
                note("export stopped at \(Cell.isoTime(earliest)): the source says its history begins at \(Cell.isoTime(page.oldest)), before any account's")
                return earliest
            }
            length = rows.isEmpty ? min(length * 2, longestWindow) : ActivityPager.windowLength
            to = from
        }
    }

    /// Writes rows in the chosen format as they come.
    struct Writer {
        let context: CommandContext
        let goals: [Goal]
        /// `activity` or `export`: the journal's first comment names the command that wrote it.
        let kind: Kind
        var totals = Totals()
        /// The source's details of the rows, asked once at the first JSON row (its answers are in by then).
        var details: [String: ActivityDetails]?
        private var sums: [String: CheckedSum] = [:]
        private var total: CheckedSum
        /// What the rows' postings move in each of the journal's accounts, per currency: each is
        /// its own commodity, and an opening and its assertion are in the balance's; once that
        /// sum overflows, no opening can be said.
        private var postingSums: [String: [Currency: CheckedSum]] = [:]
        /// The pending rows a journal left out (`ActivityDetails.pending`).
        private(set) var pendingLeftOut = 0
        /// The journal's part of each bank account by its id (`ActivityDetails.accountId`): its
        /// name, and the id beside it when two accounts have one name. Made at the first need.
        private var accountParts: [String: String]?
        private var newest: Date?
        private let layout: TableLayout
        /// The journal's `rule:` tags: which moves a savings rule made, from the records.
        private var ruleMoves: RuleMoves

        init(context: CommandContext, goals: [Goal], kind: Kind) {
            self.context = context
            self.goals = goals
            self.kind = kind
            ruleMoves = RuleMoves(transfers: context.format == .ledger
                                  ? context.saver.record.allParts() + (context.rules?.allParts() ?? []) : [])
            total = CheckedSum(context.currency)
            let goalWidth = min(24, max(4, goals.map { TableLayout.width($0.name) }.max() ?? 4))
            layout = TableLayout([.init("TIME", width: 16), .init("AMOUNT", width: 12, alignRight: true),
                                  .init("GOAL", width: goalWidth), .init("MESSAGE", width: 0)])
        }

        func begin(header: Bool = true) {
            let output = context.output
            switch context.format {
            case .table: layout.header(output)
            case .csv where !header: break
            case .json:
                output.line("{\"schema\":\"qapital-tui.activity\",\"version\":\(jsonSchemaVersion),\"source\":\(Cell.json(context.sourceKind)),\"activities\":[")
            case .csv: output.line("time,amount,currency,minor_units,goal,goal_id,user_id,message,id")
            case .ledger:
                output.line("; qapital-tui \(kind.rawValue): one transaction per activity, newest first (hledger and ledger read it)")
                output.line("")
            }
        }

        mutating func write(_ activity: Activity, goal: Goal?) {
            let output = context.output
            let message = activity.message.plainText
            switch context.format {
            case .table:
                output.line(layout.row([context.minute(activity.timestamp), activity.amount.formatted, goal?.name ?? "", message]))
            case .json:
                var fields = [
                    "\"id\":\(Cell.json(activity.id))",
                    "\"time\":\(Cell.json(Cell.isoTime(activity.timestamp)))",
                    "\"amount\":\(CommandContext.jsonMoney(activity.amount))",
                    "\"goal\":" + (goal.map { "{\"id\":\(Cell.json($0.id.rawValue)),\"name\":\(Cell.json($0.name))}" } ?? "null"),
                    "\"userId\":\(activity.userId)",
                    "\"message\":\(Cell.json(message))",
                ]
                loadDetails()
                if let details, !details.isEmpty {
                    let row = details[activity.id]
                    fields.append("\"account\":" + (row.map { "{\"id\":\(Cell.json($0.accountId)),\"name\":\(Cell.json($0.accountName))}" } ?? "null"))
                    fields.append("\"pending\":\(row?.pending ?? false)")
                }
                output.line((totals.rows > 0 ? "," : "") + "{" + fields.joined(separator: ",") + "}")
            case .csv:
                output.line([Cell.isoTime(activity.timestamp), Cell.decimal(activity.amount), activity.amount.currency.code,
                             String(activity.amount.minorUnits), Cell.csv(goal?.name ?? ""), Cell.csv(goal?.id.rawValue ?? ""),
                             String(activity.userId), Cell.csv(message), Cell.csv(activity.id)].joined(separator: ","))
            case .ledger:
                output.line("\(context.day(activity.timestamp)) \(Cell.ledgerDescription(message))")
                // `rule:` for a savings rule's transfer (`hledger balance tag:rule=coffee`).
                let rule = ruleMoves.isEmpty ? nil : ruleMoves.rule(of: activity, goal: goal?.id ?? activity.goalId)
                output.line("    ; time: \(Cell.isoTime(activity.timestamp)), user: \(activity.userId), id: \(Cell.ledgerTagValue(activity.id))"
                            + (rule.map { ", rule: " + Cell.ledgerTagValue($0) } ?? ""))
                loadDetails()
                let part = details?[activity.id].map { accountPart(id: $0.accountId, name: $0.accountName) } ?? "account"
                for posting in LedgerPostings.postings(activity, goal: goal, source: context.sourceKind, accountPart: part) {
                    output.line("    " + posting.line)
                    postingSums[posting.account, default: [:]][posting.amount.currency, default: CheckedSum(posting.amount.currency)]
                        .add(posting.amount)
                }
                output.line("")
            }
            totals.rows += 1
            newest = max(newest ?? activity.timestamp, activity.timestamp)
            let key = goal?.name ?? ""
            var sum = sums[key] ?? CheckedSum(context.currency)
            sum.add(activity.amount)
            sums[key] = sum
            total.add(activity.amount)
        }

        /// The source's details of the rows, asked once (its answers are in by the first row).
        private mutating func loadDetails() {
            if details == nil, let lookup = context.activityDetails { details = lookup() }
        }

        /// Whether a journal leaves the row out: a pending one (counted; said on stderr).
        mutating func leavesOut(_ activity: Activity) -> Bool {
            guard context.format == .ledger else { return false }
            loadDetails()
            guard details?[activity.id]?.pending == true else { return false }
            pendingLeftOut += 1
            return true
        }

        /// ACCOUNT in `assets:NAME:ACCOUNT` for the bank account `id`: its name, with the id
        /// beside it when another account of the rows or the balances has the same name.
        private mutating func accountPart(id: String, name: String) -> String {
            if accountParts == nil {
                var names: [String: String] = [:]
                for balance in context.bookedBalances?() ?? [] {
                    if case .account(let id) = balance.holder { names[id] = balance.name }
                }
                for row in (details ?? [:]).values where names[row.accountId] == nil { names[row.accountId] = row.accountName }
                var ids: [String: Set<String>] = [:]
                for (id, name) in names { ids[Cell.accountPart(name), default: []].insert(id) }
                accountParts = names.mapValues(Cell.accountPart)
                for (id, name) in names where (ids[Cell.accountPart(name)]?.count ?? 0) > 1 {
                    accountParts?[id] = Cell.accountPart(name + " " + id)
                }
            }
            if let part = accountParts?[id] { return part }
            let part = Cell.accountPart(name)
            accountParts?[id] = part
            return part
        }

        /// A whole journal's openings and assertions, one for each account the source says a
        /// booked balance of (`BookedBalance`): each opening is that balance less what the
        /// journal's postings move in that account in its currency, dated where the walk stopped
        /// (before every row), into `equity:opening-balances`; each assertion, dated after every
        /// row, says the balance, so hledger checks the file says what the bank says. Rows in
        /// another currency stay their own commodity. An account whose balance is unknown, or
        /// whose sum overflows, gets neither, named on stderr.
        mutating func writeOpenings(_ balances: [BookedBalance], stop: Date, now: Date, asserted: Bool) {
            var known: [(balance: BookedBalance, booked: Money, account: String)] = []
            for balance in balances {
                let name = Cell.plain(balance.name)
                guard let booked = balance.booked else {
                    context.note("no opening or assertion for \(name): its booked balance is not known")
                    continue
                }
                switch balance.holder {
                case .account(let id):
                    known.append((balance, booked, LedgerPostings.bankAccount(source: context.sourceKind, part: accountPart(id: id, name: balance.name))))
                case .goal(let id):
                    guard let goal = goals.first(where: { $0.id == id }) else {
                        context.note("no opening or assertion for \(name): it is not among the goals")
                        continue
                    }
                    known.append((balance, booked, LedgerPostings.goalAccount(source: context.sourceKind, goal: goal)))
                }
            }
            // Two goals of one name share a journal account: no balance of either is its balance.
            var shared: [String: Int] = [:]
            for entry in known { shared[entry.account, default: 0] += 1 }
            var openings: [(account: String, booked: Money, opening: Money)] = []
            var comments: [String] = []
            for (balance, booked, account) in known {
                let name = Cell.plain(balance.name)
                guard shared[account] == 1 else {
                    context.note("no opening or assertion for \(name): another account has its name in the journal")
                    continue
                }
                let currency = booked.currency
                let side = postingSums[account]?[currency] ?? CheckedSum(currency)
                guard !side.overflowed else {
                    context.note("no opening or assertion for \(name): its rows in \(currency.code) sum past what an amount may be")
                    continue
                }
                let (opening, overflow) = booked.minorUnits.subtractingReportingOverflow(side.total.minorUnits)
                // Int64.min too: its equity side could not be written.
                guard !overflow, opening != .min else {
                    context.note("no opening or assertion for \(name): the balance less the rows overflows")
                    continue
                }
                openings.append((account, booked, Money(minorUnits: opening, currency: currency)))
                comments.append("; \(context.sourceKind) says the booked balance of \(name) is \(Cell.ledgerAmount(booked))"
                                + (balance.asOf.map { " (\(Cell.isoTime($0)))" } ?? "")
                                + "; the rows above move \(Cell.ledgerAmount(side.total)), the opening the rest")
            }
            guard !openings.isEmpty else { return }
            let output = context.output
            for comment in comments { output.line(comment) }
            output.line("\(context.day(stop)) opening balances")
            for opening in openings {
                output.line("    \(opening.account)  \(Cell.ledgerAmount(opening.opening))")
                output.line("    equity:opening-balances  \(Cell.ledgerAmount(Money(minorUnits: Money.negate(opening.opening.minorUnits), currency: opening.opening.currency)))")
            }
            output.line("")
            guard asserted else { return }
            output.line("\(context.day(max(now, newest ?? now))) balances as \(context.sourceKind) says")
            for opening in openings {
                output.line("    \(opening.account)  \(Cell.ledgerAmount(.zero(opening.booked.currency))) = \(Cell.ledgerAmount(opening.booked))")
            }
            output.line("")
        }

        /// The journal's opening: the source's balance less what the rows move, dated where the
        /// walk stopped (before every row), into `equity:opening-balances`; then the balance
        /// asserted, dated after every row, so hledger checks the file says what the bank says.
        /// Rows in another currency (a yen card) are their own commodity, with no opening. Said on
        /// stderr instead when the rows in the balance's currency sum past what an amount may be.
        func writeOpening(_ balance: FeedBalance, stop: Date, now: Date, asserted: Bool) {
            let side = postingSums[LedgerPostings.bankAccount(source: context.sourceKind)]?[balance.amount.currency]
                ?? CheckedSum(balance.amount.currency)
            let moved = side.total
            guard !side.overflowed else {
                context.note("no opening balance: the rows in \(balance.amount.currency.code) sum past what an amount may be")
                return
            }
            let (opening, overflow) = balance.amount.minorUnits.subtractingReportingOverflow(moved.minorUnits)
            guard !overflow else {
                context.note("no opening balance: the balance less the rows overflows")
                return
            }
            let currency = balance.amount.currency
            let account = LedgerPostings.bankAccount(source: context.sourceKind)
            let output = context.output
            output.line("; \(context.sourceKind) says the balance of \(Cell.plain(balance.accounts)) is \(Cell.ledgerAmount(balance.amount)) "
                        + "(\(Cell.isoTime(balance.asOf))); the rows above move \(Cell.ledgerAmount(moved)), the opening the rest")
            output.line("\(context.day(stop)) opening balance")
            output.line("    \(account)  \(Cell.ledgerAmount(Money(minorUnits: opening, currency: currency)))")
            output.line("    equity:opening-balances  \(Cell.ledgerAmount(Money(minorUnits: Money.negate(opening), currency: currency)))")
            output.line("")
            guard asserted else { return }
            output.line("\(context.day(max(now, newest ?? now))) balance as \(context.sourceKind) says")
            output.line("    \(account)  \(Cell.ledgerAmount(.zero(currency))) = \(Cell.ledgerAmount(balance.amount))")
            output.line("")
        }

        mutating func end() {
            if context.format == .json { context.output.line("]}") }
            totals.perGoal = sums.mapValues(\.total)
            totals.total = total.total
            totals.overflowed = total.overflowed || sums.values.contains { $0.overflowed }
        }
    }
}

/// Which goal an activity credits: the goal its source names by id (Up's saver, Starling's
/// savings goal, Monzo's pot: `Activity.goalId`); only for a Qapital saving, whose message is all
/// the API gives, its last bold run that is a goal's name ("<strong>George</strong> moved money
/// into <strong>Bike</strong>"). A bank's payment or declined transfer credits no goal, whatever
/// its text says, and an id that is none of the goals credits none (docs/banks.md).
public enum GoalMatch {
    public static func goal(of activity: Activity, in goals: [Goal]) -> Goal? {
        if let id = activity.goalId { return goals.first { $0.id == id } }
        guard activity.kind == .saving else { return nil }
        for run in activity.message.runs.reversed() where run.isBold {
            let name = run.text.trimmingCharacters(in: .whitespaces)
            if let goal = goals.first(where: { $0.name == name }) { return goal }
        }
        return nil
    }
}
