import FeedModel
import Foundation
import TermUI

/// Tab 3: a week's card payments with their round-ups and the total that can be saved; `s`
/// opens the goal picker (`GoalPicker`), then the confirmation (`SaveConfirmation`).
@MainActor
final class RoundUpsScreen: TabScreen, ListScreen {
    nonisolated static let title = "Round-ups"

    /// Its own keys: the weeks, the chart, saving the week into a goal.
    enum Action: String, ScreenAction {
        case previousWeek = "previous-week", nextWeek = "next-week"
        case toggleChart = "toggle-chart"
        case save
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        let section = "Round-ups"
        map.bind([.left, .char("[")], to: Action.previousWeek, help: "previous week", section: section)
        map.bind([.right, .char("]")], to: Action.nextWeek, help: "next week (up to this week)", section: section)
        map.bind([.char("c")], to: Action.toggleChart, help: "show or hide the last twelve weeks' bars", section: section)
        map.bind([.char("s")], to: Action.save, help: "save the week's round-ups into a goal (after a failure: retry)", section: section)
        return map
    }()

    /// The week's payments; the filter shows only those whose counterparty matches (the totals stay the week's).
    var model = ListModel()
    /// The twelve weeks' bars, where the height allows (`c` hides and shows them).
    var showsChart = true

    /// Money moved into a goal: the header's balance, and the goal's feed and the activity
    /// where they are loaded, so every sum agrees.
    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        guard event == .transfer, case .succeeded(let goal, _)? = data.roundUps.transfer?.phase else { return [] }
        return Command.afterSaving(into: goal.id, data)
    }

    func rows(_ data: ScreenData) -> [RoundUp.Line] { data.roundUps.summary?.lines ?? [] }
    func matches(_ line: RoundUp.Line, filter: String, _ data: ScreenData) -> Bool {
        line.transaction.counterparty.localizedCaseInsensitiveContains(filter)
    }
    func identity(_ line: RoundUp.Line) -> AnyHashable { line.id }

    private var started = false

    init() {}

    func appear(_ data: ScreenData) -> [Command] {
        guard !started else { return [] }
        started = true
        return [.loadWeek]
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        let store = data.roundUps
        if navigate(action, data) { return .consumed }
        switch Action(action) {
        case .previousWeek:
            list.top()
            return .run(.showPreviousWeek)
        case .nextWeek:
            guard store.canShowNextWeek else { return .consumed }
            list.top()
            return .run(.showNextWeek)
        case .save:
            // Retries a failed transfer with its id; otherwise the goal picker, or why not.
            // The tab says why already (each message once): `s` only points at it.
            if data.noMoneyMoves != nil { return .notice("Nothing is sent from here: the line above says why.") }
            if store.transfer?.failureMessage != nil { return .run(.retryTransfer) }
            // The week is still on its way: the key, and those typed after it, wait for it (issue 50, item 8).
            if store.saveProblem == .notLoaded, store.status.isLoading {
                return .hold("Waiting for the week to load… (Esc cancels)")
            }
            if let problem = store.saveProblem { return .notice(problem.message) }
            return .present(GoalPicker(offer: Self.offer(store)))
        case .toggleChart:
            showsChart.toggle()
            return .consumed
        case nil: break
        }
        switch action {
        case .back:
            return .run(.dismissTransfer)
        case .newGoal:
            return NewGoalForm.open(data)
        case .open:
            guard let line = selectedRow(data), let summary = store.summary else { return .consumed }
            return .present(Self.card(line, saveable: summary.isSaveable(line), calendar: store.week.calendar, format: data.format))
        default:
            return .ignored
        }
    }

    /// Enter on a payment: it in full, with its round-up and whether that is part of the week's total.
    static func card(_ line: RoundUp.Line, saveable: Bool, calendar: Calendar, format: DisplayFormat) -> DetailCard {
        let payment = line.transaction
        let muted = Style(fg: .role(.muted))
        return DetailCard(title: "Payment", fields: [
            DetailCard.field("When", [Span(dayLabel(payment.timestamp, calendar: calendar, year: true) + " " + format.time(payment.timestamp))]),
            DetailCard.field("Paid to", [Span(payment.counterparty)]),
            DetailCard.field("Amount", [Span(payment.amount.formatted, Style(fg: .role(.moneyOut)))]),
            DetailCard.field("Round-up", [Span(line.roundUp.formatted, DisplayFormat.moneyStyle)]
                + [Span(line.roundUp.minorUnits == 0 ? "  " + wholeAmountNote
                        : saveable ? "  in the week's total" : "  apart: another currency than the account's", muted)]),
        ])
    }

    /// The week's round-ups not saved yet, as the goal picker and the confirmation offer them.
    static func offer(_ store: any RoundUpsReading) -> SaveOffer {
        SaveOffer(amount: store.unsavedTotal ?? .zero(store.accountCurrency), what: "of round-ups",
                  from: "from the week of " + weekLabel(store.week), save: { .save(into: $0) })
    }

    /// Why a payment rounds up by nothing.
    static let wholeAmountNote = "a whole amount: nothing to round up"

    func refresh(_ data: ScreenData) -> [Command] {
        data.roundUps.transfer?.failureMessage != nil ? [.retryTransfer] : [.loadWeek]
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        Self.render(state: self, lines: visible(data), list: &list, store: data.roundUps, format: data.format, keys: data.keys,
                    bankMoves: data.noMoneyMoves, into: &buffer, area: area)
        // Where the payments would be (`emptyMessage`), once the screen has room for it.
        let failure = area.height >= 3 && (data.roundUps.summary?.lines.isEmpty ?? true) ? data.roundUps.status.failureMessage : nil
        return Layout(area: area, list: list, failureShown: failure)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }


    // MARK: - Words

    /// "Mon 11 Jan", or "Mon 11 Jan 2027" with the year.
    static func dayLabel(_ date: Date, calendar: Calendar, year: Bool = false) -> String {
        CalendarWords.day(date, calendar: calendar, year: year)
    }

    /// "Mon 11 Jan – Sun 17 Jan 2027" (both years when the week spans New Year).
    static func weekLabel(_ week: Week) -> String {
        let calendar = week.calendar
        let spansYears = calendar.component(.year, from: week.start) != calendar.component(.year, from: week.lastDay)
        return dayLabel(week.start, calendar: calendar, year: spansYears) + " – " + dayLabel(week.lastDay, calendar: calendar, year: true)
    }

    static func paymentsPhrase(_ count: Int) -> String { count == 1 ? "1 payment" : "\(count) payments" }

    // MARK: - Drawing

    /// Top to bottom: the heading (the week, the week keys), the twelve weeks' bars where the
    /// height allows, the payments (column headings, then the list, or why there is none), and
    /// the footer (totals, what was saved, the transfer), its lowest-ranked lines left out where
    /// the height is short. `bankMoves`: the bank makes and moves the round-ups itself (Up): its
    /// totals are shown as made, with that line instead of `s`.
    static func render(state: RoundUpsScreen, lines: [RoundUp.Line], list: inout ListState, store: any RoundUpsReading, format: DisplayFormat, keys: KeyLabels = .defaults,
                       bankMoves: String? = nil, into buffer: inout CellBuffer, area: Rect) {
        guard area.height >= 3 else { return }
        let footer = footerLines(store, keys: keys, bankMoves: bankMoves, width: max(1, area.width - 2))
        let kept = keptLines(footer.ranks, room: max(0, area.height - 4)).map { footer.lines[$0] }
        // The chart takes its rows (and one below) only where it drew.
        let chartSpot = area.rows([.length(1), .length(chartHeight)])[1].inset(dx: 1, dy: 0)
        let chartShown = state.showsChart && area.height >= chartMinimumHeight && drawWeeks(store, into: &buffer, rect: chartSpot)
        let parts = area.rows([.length(1), .length(chartShown ? chartHeight + 1 : 0), .length(1), .fill(1),
                               .length(kept.isEmpty ? 0 : kept.count + 1)])
        let (headingRow, headingsRow, body, footerRect) = (parts[0], parts[2], parts[3], parts[4])

        drawHeading(store, into: &buffer, row: headingRow)
        for (index, line) in kept.enumerated() {
            buffer.write(line, x: footerRect.x + 1, y: footerRect.y + 1 + index, maxWidth: footerRect.width - 2)
        }
        if let summary = store.summary, !summary.lines.isEmpty {
            drawColumnHeadings(into: &buffer, row: headingsRow)
            drawPayments(summary, lines: lines, view: state.model.view, filter: state.filter, calendar: store.week.calendar, format: format, list: &list, into: &buffer, rect: body)
        } else {
            let (text, style) = emptyMessage(store, keys: keys)
            buffer.write(text, x: body.x + 1, y: body.y, maxWidth: body.width - 2, style: style)
        }
    }

    /// The week and how to move: the week keeps its room first (the keys shrink, then go).
    private static func drawHeading(_ store: any RoundUpsReading, into buffer: inout CellBuffer, row: Rect) {
        let muted = Style(fg: .role(.muted))
        let (heading, weekKeys) = headingLine(store, width: row.width - 2)
        let keysX = weekKeys.isEmpty ? row.maxX : buffer.writeRightAligned(weekKeys, maxX: row.maxX - 1, y: row.y, style: muted)
        buffer.write(heading, x: row.x + 1, y: row.y, maxWidth: max(0, keysX - row.x - 2),
                     style: Style(fg: .role(.title), attributes: .bold))
    }

    /// The week's payments that match `filter`, or why none does.
    private static func drawPayments(_ summary: RoundUp.Summary, lines: [RoundUp.Line], view: ListView, filter: String, calendar: Calendar, format: DisplayFormat,
                                     list: inout ListState, into buffer: inout CellBuffer, rect: Rect) {
        view.draw(into: &buffer, rect: rect, count: lines.count, state: &list) { buffer, index, row, _ in
            drawLine(lines[index], saveable: summary.isSaveable(lines[index]), calendar: calendar,
                     format: format, filter: filter, into: &buffer, row: row)
        }
        if lines.isEmpty {
            buffer.write("No payment matches “\(filter)”. Esc clears the filter.", x: rect.x + 1, y: rect.y,
                         maxWidth: rect.width - 2, style: Style(fg: .role(.muted)))
        }
    }

    /// What stands where the payments would: loading, the failure, or a week without card payments.
    private static func emptyMessage(_ store: any RoundUpsReading, keys: KeyLabels) -> (String, Style) {
        let muted = Style(fg: .role(.muted))
        switch store.status {
        case .idle, .loading:
            return ("Loading the week's payments…", muted)
        case .failed(let error):
            return ("✗ \(error) — press \(keys[.refresh]) to retry", Style(fg: .role(.error)))
        case .loaded:
            return (store.isCurrentWeek ? "No card payments yet this week: nothing to round up."
                    : "No card payments this week: nothing to round up.", muted)
        }
    }

    /// The footer's lines, top to bottom (what was saved, the total or what is left, other
    /// currencies, the transfer, why the bank moves them), each with its rank: where the height is
    /// short the lowest ranks go first, the total last. Each keeps to one line but the bank's
    /// reason, wrapped to `width` to be read whole.
    static func footerLines(_ store: any RoundUpsReading, keys: KeyLabels, bankMoves: String?, width: Int) -> (lines: [[Span]], ranks: [Int]) {
        let muted = Style(fg: .role(.muted))
        var footer: [[Span]] = []
        var ranks: [Int] = []
        func rank(_ value: Int) { ranks += Array(repeating: value, count: footer.count - ranks.count) }
        // The week's summary stays while it is loaded again (the store clears it on a week change).
        if let summary = store.summary, !summary.lines.isEmpty {
            // What the record says was saved of this week (this run, an earlier one, another machine).
            let saved = store.progress?.saved ?? []
            // The transfer this run just made says so itself, with the goal's new balance (each
            // message once): its record line is left out while that line shows.
            let justSaved: UUID? = if let transfer = store.transfer, transfer.week.start == store.week.start,
                                      case .succeeded = transfer.phase { transfer.id } else { nil }
            for part in saved.suffix(2) where part.key != justSaved {
                let when = part.savedAt.map { " on " + dayLabel($0, calendar: store.week.calendar, year: true) } ?? ""
                let text = part.state == .savedElsewhere
                    ? "✓ Saved by another run or machine\(when)"
                    : "✓ Saved \(part.amount.formatted) into \(part.goalName)\(when): \(paymentsPhrase(part.payments.count))"
                footer.append([Span(text, DisplayFormat.moneyStyle)])
            }
            rank(1)
            if let progress = store.progress, !saved.isEmpty {
                if !progress.remaining.isEmpty {
                    var rest = [Span("Not saved yet: ", .bold),
                                Span(progress.remainingTotal.formatted, DisplayFormat.moneyStyle.adding(.bold)),
                                Span(" from " + paymentsPhrase(progress.remaining.count), muted)]
                    if store.saveProblem == nil { rest.append(Span("   s: save into a goal", Style(fg: .role(.accent)))) }
                    footer.append(rest)
                }
            } else {
                // A read-only source whose round-ups are computed here (not the bank's own): suggestions only.
                let suggested = summary.lines.contains { $0.transaction.bankRoundUp == nil && !$0.roundUp.isZero }
                let title = bankMoves == nil ? "Round-ups: " : suggested ? "Round-ups (suggestions only): " : "Round-ups the bank made: "
                var total = [Span(title, .bold),
                             Span(summary.saveable.formatted, DisplayFormat.moneyStyle.adding(.bold)),
                             Span(" from " + paymentsPhrase(summary.saveableCount), muted)]
                if store.saveProblem == nil, bankMoves == nil { total.append(Span("   s: save into a goal", Style(fg: .role(.accent)))) }
                if case .weekUnderWay? = store.saveProblem, bankMoves == nil { total.append(Span("   saved once the week is over", muted)) }
                footer.append(total)
            }
            rank(3)
            let others = summary.otherTotals
            if !others.isEmpty {
                let parts = others.map { "\($0.formatted) (\(paymentsPhrase(summary.count(in: $0.currency))) in \($0.currency.code))" }
                footer.append([Span("Not saved, other currencies: " + parts.joined(separator: ", "), muted)])
            }
            rank(1)
        }
        footer += transferLines(store, keys: keys)
        rank(2)
        if let bankMoves { footer += SpanWrap.wrap([Span(bankMoves, muted)], width: width) }
        rank(1)
        return (footer, ranks)
    }

    /// Which footer lines fit in `room` lines, in their order: the lowest rank goes first (of
    /// equal ranks the topmost), so the week's total is the last to go.
    static func keptLines(_ ranks: [Int], room: Int) -> [Int] {
        var kept = Array(ranks.indices)
        while kept.count > room, let drop = kept.indices.min(by: { ranks[kept[$0]] < ranks[kept[$1]] }) { kept.remove(at: drop) }
        return kept
    }

    /// The heading and the week keys that fit `width` cells: the whole heading with the keys
    /// written out, then with arrows alone, then shorter headings ("Mon 16 Nov – Sun 22 Nov 2026",
    /// "16 Nov – 22 Nov") without keys.
    static func headingLine(_ store: any RoundUpsReading, width: Int) -> (heading: String, keys: String) {
        let week = store.week
        let label = weekLabel(week)
        let full = "Week of " + label + (store.isCurrentWeek ? " · this week" : "")
        let keys = store.canShowNextWeek ? ["← [ previous · next ] →", "← →"] : ["← [ previous", "←"]
        let candidates = [(full, keys[0]), (full, keys[1]), ("Week of " + label, keys[1]), (label, keys[1]), (full, ""),
                          ("Week of " + label, ""), (label, ""),
                          (shortDay(week.start, calendar: week.calendar) + " – " + shortDay(week.lastDay, calendar: week.calendar), "")]
        for (heading, keys) in candidates where TextWidth.of(heading) + (keys.isEmpty ? 0 : TextWidth.of(keys) + 2) <= width {
            return (heading, keys)
        }
        return (candidates.last!.0, "")
    }

    /// Rows of the twelve weeks' bars (with their date row), and the height they need.
    static let chartHeight = 5
    static let chartMinimumHeight = 20

    /// "16 Nov".
    private static func shortDay(_ date: Date, calendar: Calendar) -> String {
        CalendarWords.day(date, calendar: calendar, weekday: false)
    }

    /// The bars of the last twelve weeks' round-ups, the shown week highlighted, and beside them
    /// what they add up to; false (nothing drawn) before they loaded or where they do not fit.
    static func drawWeeks(_ store: any RoundUpsReading, into buffer: inout CellBuffer, rect: Rect) -> Bool {
        let history = store.history
        guard let first = history.first, let last = history.last else { return false }
        let currency = store.accountCurrency
        let largest = history.map(\.total.minorUnits).max() ?? 0
        let shown = history.firstIndex { $0.week == store.week }
        let calendar = store.calendar
        var chart = BarChart(values: history.map(\.total.minorUnits), highlighted: shown,
                             topLabel: Money(minorUnits: largest, currency: currency).formatted,
                             xLabels: [shortDay(first.week.start, calendar: calendar), shortDay(last.week.start, calendar: calendar)])
        chart.highlightLabel = shown.map { shortDay(history[$0].week.start, calendar: calendar) }
        // Bars three cells wide when there is room, and the words to their right.
        let parts = rect.columns([.length(chart.gutterWidth + history.count * 4 - 1), .fill(1)], spacing: 2)
        let words = parts[1]
        guard chart.draw(into: &buffer, rect: words.width >= 24 ? parts[0] : rect) else { return false }
        guard words.width >= 24 else { return true }
        let muted = Style(fg: .role(.muted))
        let total = Money.sum(history.map(\.total.minorUnits))
        var lines: [[Span]] = [[Span("Round-ups, last \(history.count) weeks", .bold)],
                               [Span("in all ", muted), Span(Money(minorUnits: total, currency: currency).formatted, DisplayFormat.moneyStyle)]]
        if let shown {
            lines.append([Span("▲ ", Style(fg: .role(.highlight), attributes: .bold)), Span("the week shown: ", muted),
                          Span(history[shown].total.formatted, DisplayFormat.moneyStyle)])
        }
        if case .failed = store.historyStatus { lines.append([Span("✗ not up to date", Style(fg: .role(.error)))]) }
        for (line, row) in zip(lines, words.rows) {
            buffer.write(line, x: row.x, y: row.y, maxWidth: row.width)
        }
        return true
    }

    private static func transferLines(_ store: any RoundUpsReading, keys: KeyLabels) -> [[Span]] {
        guard let transfer = store.transfer else { return [] }
        var what = "\(transfer.amount.formatted) into \(transfer.goalName)"
        // Another week's transfer: its lines belong to its week; one in flight or failed is still
        // named (s and r act on it), with its week.
        if transfer.week.start != store.week.start {
            what += " (week of \(shortDay(transfer.week.start, calendar: transfer.week.calendar)))"
            switch transfer.phase {
            case .sending: return [[Span("Saving \(what)…", Style(fg: .role(.warning), attributes: .bold))]]
            case .checking: return [[Span("Checking whether \(what) moved…", Style(fg: .role(.warning), attributes: .bold))]]
            case .failed: return [[Span("✗ Saving \(what) failed: \(keys[Action.save]) or \(keys[.refresh]) retries", Style(fg: .role(.error), attributes: .bold))]]
            case .mayHaveMoved: return [[Span("? \(what) may have moved: \(keys[Action.save]) or \(keys[.refresh]) checks", Style(fg: .role(.warning), attributes: .bold))]]
            case .succeeded, .savedElsewhere: return []
            }
        }
        switch transfer.phase {
        case .sending:
            return [[Span("Saving \(what)…", Style(fg: .role(.warning), attributes: .bold))]]
        case .checking:
            // The four outcomes (docs/roundups.md): the answer was lost, so it may have moved.
            return [[Span("The answer was lost: checking whether \(what) moved…", Style(fg: .role(.warning), attributes: .bold))]]
        case .failed(let message):
            return [[Span("✗ Saving \(what) failed: \(message)", Style(fg: .role(.error), attributes: .bold))],
                    [Span("  \(keys[Action.save]) or \(keys[.refresh]): retry with the same transfer id (never saved twice) · \(keys[.back]): drop it", Style(fg: .role(.error)))]]
        case .mayHaveMoved:
            // The error itself is the status bar's (whole, wrapped there).
            return [[Span("? \(what) may have moved: its answer was lost", Style(fg: .role(.warning), attributes: .bold))],
                    [Span("  \(keys[Action.save]) or \(keys[.refresh]): check with the same transfer id (it moves once) · \(keys[.back]): hide this", Style(fg: .role(.warning)))]]
        case .succeeded(let goal, let checked):
            // Found by checking after a lost answer: still this run's move, once.
            let found = checked ? " (found by checking)" : ""
            return [[Span("✓ Saved \(what)\(found): its balance is now \(goal.balance.formatted)", DisplayFormat.moneyStyle.adding(.bold))]]
        case .savedElsewhere(let said):
            // The source's own words when it has them (the date and the goal of the earlier save).
            let text = said.map { "✓ " + $0.prefix(1).uppercased() + $0.dropFirst() } ?? "✓ Already saved by another run or machine: nothing moved now"
            return [[Span(text, DisplayFormat.moneyStyle.adding(.bold))]]
        }
    }

    /// Column widths of a payment row: date, then amount and round-up from the right.
    /// Below 50 columns what matters least gives way first (issue 50, item 12): the date is its
    /// weekday alone (the heading names the week) and the amounts take their own width, so the
    /// payee keeps its name.
    private static func dateWidth(_ row: Rect) -> Int { row.width >= 60 ? 16 : row.width >= 50 ? 10 : 3 }
    private static func amountWidth(_ row: Rect) -> Int { row.width >= 50 ? 12 : 9 }
    private static func roundUpWidth(_ row: Rect) -> Int { row.width >= 50 ? 11 : 8 }

    static func drawColumnHeadings(into buffer: inout CellBuffer, row: Rect) {
        let style = Style(fg: .role(.muted), attributes: .underline)
        buffer.write(TextWidth.pad(row.width >= 50 ? "Date" : "Day", to: dateWidth(row)) + "  Paid to", x: row.x + 1, y: row.y, style: style)
        let right = TextWidth.pad("Amount", to: amountWidth(row), alignRight: true)
            + TextWidth.pad(row.width >= 50 ? "Round-up" : "Round", to: roundUpWidth(row), alignRight: true)
        buffer.writeRightAligned(right, maxX: row.maxX - 1, y: row.y, style: style)
    }

    static func drawLine(_ line: RoundUp.Line, saveable: Bool, calendar: Calendar, format: DisplayFormat,
                         filter: String = "", into buffer: inout CellBuffer, row: Rect) {
        let transaction = line.transaction
        let muted = Style(fg: .role(.muted))
        let roundUp = saveable ? line.roundUp.formatted : "(\(line.roundUp.formatted))"
        let right = [
            Span(DisplayFormat.amountColumn(transaction.amount.formatted, to: amountWidth(row)), saveable ? Style(fg: .role(.moneyOut)) : muted),
            Span(DisplayFormat.amountColumn(roundUp, to: roundUpWidth(row)), saveable ? DisplayFormat.moneyStyle : muted),
        ]
        let rightWidth = right.reduce(0) { $0 + $1.width }
        var x = row.x + 1
        let date = row.width >= 60
            ? dayLabel(transaction.timestamp, calendar: calendar) + " " + format.time(transaction.timestamp)
            : row.width >= 50 ? dayLabel(transaction.timestamp, calendar: calendar)
            : String(dayLabel(transaction.timestamp, calendar: calendar).prefix(3))
        x += buffer.write(TextWidth.pad(date, to: dateWidth(row)) + "  ", x: x, y: row.y, style: muted)
        let nameWidth = row.maxX - x - rightWidth - 1
        if nameWidth > 0 {
            buffer.write(DisplayFormat.highlighting([Span(transaction.counterparty, saveable ? .plain : muted)], filter),
                         x: x, y: row.y, maxWidth: nameWidth)
        }
        buffer.write(right, x: row.maxX - rightWidth - 1, y: row.y, maxWidth: rightWidth)
    }
}

/// What the Round-ups tab asks of the stores.
extension Command {
    static let showPreviousWeek = Command("show-previous-week") { $0.stores.roundUps.showPreviousWeek() }
    static let showNextWeek = Command("show-next-week") { $0.stores.roundUps.showNextWeek() }
    /// `s` (after the confirmation): the shown week's round-ups into that goal.
    static func save(into goal: GoalID) -> Command {
        Command.noting("save-week", goal) { runner in
            guard let found = runner.stores.goals.goal(id: goal) else { return "That goal is no longer there." }
            do throws(RoundUpStore.SaveProblem) {
                try runner.stores.roundUps.save(into: found)
            } catch {
                return error.message
            }
            return nil
        }
    }
    /// The failed transfer again, with its transfer id (never saved twice).
    static let retryTransfer = Command("retry-transfer") { $0.stores.roundUps.retryTransfer() }
    /// Drops the transfer's message (a failure is given up on).
    static let dismissTransfer = Command("dismiss-transfer") { $0.stores.roundUps.dismissTransfer() }
}
