import FeedModel
import Foundation
import TermUI

/// The goal detail's chart block: the balance over time rebuilt from the feed (a braille line,
/// amounts in the account's currency on the left, dates under it, the target dashed), "at this
/// pace" under it, and a rule. Only reads what it is given.
@MainActor
enum GoalChart {
    /// Below this many rows under the header, the chart is left out (the feed keeps them).
    static let minimumBodyHeight = 16
    /// Narrower than this, a chart says too little: left out.
    static let minimumWidth = 40

    /// Rows the block takes out of `bodyHeight` rows under the header: 0 when hidden.
    static func height(bodyHeight: Int) -> Int {
        bodyHeight >= minimumBodyHeight ? min(11, bodyHeight - 10) : 0
    }

    /// The chart for a goal's balance, sampled once per dot column of `rect`.
    static func chart(goal: Goal, history: BalanceHistory, now: Date, format: DisplayFormat, rect: Rect) -> LineChart {
        let range = history.range
        let low = min(0, range.lowerBound)
        let currency = goal.balance.currency
        func label(_ value: Int64) -> LineChart.Label { .init(value: value, text: Money(minorUnits: value, currency: currency).formatted) }
        var labels = [label(low), label(range.upperBound)]
        if let target = goal.target, target.currency == currency { labels.append(label(target.minorUnits)) }
        let end = now
        var start = history.first ?? now
        if start >= end { start = end.addingTimeInterval(-7 * 86_400) }
        let middle = start.addingTimeInterval(end.timeIntervalSince(start) / 2)
        var chart = LineChart(values: [], yLabels: labels,
                              xLabels: [format.shortDate(start), format.shortDate(middle), format.shortDate(end)],
                              target: goal.target.flatMap { $0.currency == currency ? $0.minorUnits : nil })
        let columns = chart.dotColumns(in: rect)
        chart.values = history.samples(from: start, to: end, count: max(1, columns)).map(\.minorUnits)
        return chart
    }

    /// Draws the block into `rect` (chart, pace line, rule); false, with nothing drawn, when the
    /// chart does not fit or there is nothing to draw.
    @discardableResult
    static func draw(goal: Goal, feed: [FeedItem], now: Date, calendar: Calendar, format: DisplayFormat,
                     into buffer: inout CellBuffer, rect: Rect) -> Bool {
        guard !feed.isEmpty, rect.height >= 3, rect.width >= minimumWidth else { return false }
        let chartRect = rect.rows([.fill(1), .length(2)])[0].inset(dx: 1, dy: 0)
        let history = BalanceHistory(current: goal.balance, feed: feed)
        let chart = chart(goal: goal, history: history, now: now, format: format, rect: chartRect)
        guard chart.draw(into: &buffer, rect: chartRect) else { return false }
        let pace = SavingPace.of(balance: goal.balance, target: goal.target, feed: feed, now: now, calendar: calendar)
        var line = [Span("At this pace: ", Style(fg: .role(.muted))), Span(pace.text(calendar: calendar), .bold)]
        if goal.target != nil { line += [Span("   ╌╌ target", Style(fg: .role(.warning)))] }
        buffer.write(line, x: rect.x + 1, y: rect.maxY - 2, maxWidth: rect.width - 2)
        buffer.write(String(repeating: "─", count: rect.width), x: rect.x, y: rect.maxY - 1, style: Style(fg: .role(.border)))
        return true
    }
}
