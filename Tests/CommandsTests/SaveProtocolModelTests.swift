import Foundation
import Testing

/// Issue 37: the save protocol explored exhaustively (`SaveProtocolModel`). A small bound here;
/// a larger one with `QT_SAVE_MODEL=MACHINES,DEPTH` (Fuzz/save-model.sh).
@Suite(.timeLimit(.minutes(5))) struct SaveProtocolModelTests {
    /// Two machines, three payments (one whole: it rounds up by nothing), depth 5: every
    /// interleaving of saves, crashes, lost answers, arrivals, the week's end and a sign-in.
    @Test func everyInterleavingMovesEachPaymentOnce() async {
        let bounds = Self.bounds(environment: ProcessInfo.processInfo.environment)
        let model = SaveProtocolModel(bounds: bounds)
        let (states, violation) = await model.explore()
        if ProcessInfo.processInfo.environment["QT_SAVE_MODEL"] != nil {
            print("save model: \(bounds.machines) machines, depth \(bounds.depth): \(states) states, \(violation ?? "nothing broken")")
        }
        #expect(violation == nil, "\(violation ?? "")")
        // The bound reached something: runs before and after the week's end, in both machines.
        #expect(states > 50, "only \(states) states")
    }

    static func bounds(environment: [String: String]) -> SaveProtocolModel.Bounds {
        var bounds = SaveProtocolModel.Bounds(machines: 2, depth: 5, payments: [435, 520, 300], signIns: 1)
        if let text = environment["QT_SAVE_MODEL"] {
            let numbers = text.split(separator: ",").compactMap { Int($0) }
            if numbers.count == 2, (1...4).contains(numbers[0]), (1...12).contains(numbers[1]) {
                bounds.machines = numbers[0]
                bounds.depth = numbers[1]
            }
        }
        return bounds
    }

    /// The model itself finds what it is for: a server that applies a reused key a second time
    /// (no idempotency) moves a payment twice within the bound.
    @Test func theModelCatchesAServerWithoutIdempotency() async {
        let model = SaveProtocolModel(bounds: .init(machines: 2, depth: 3, payments: [435], signIns: 0), forgetfulServer: true)
        let (_, violation) = await model.explore()
        #expect(violation?.contains("moved 2 times") == true, "\(violation ?? "no violation")")
    }

    /// bunq's variant (issue 39): no idempotency key; the source looks for its mark before and
    /// after sending. Lost answers, crashes, later runs and later machines move each payment
    /// once; two runs at once (both look before either sends) may move a week twice, and are
    /// then always said ("saved twice by two runs at once"), never moved back.
    @Test func withoutAnIdempotencyKeyTheMarkMovesOnceAndARaceIsSaid() async {
        let model = SaveProtocolModel(bounds: .init(machines: 2, depth: 4, payments: [435, 520, 300], signIns: 1), markedServer: true)
        let (states, violation) = await model.explore()
        #expect(violation == nil, "\(violation ?? "")")
        #expect(states > 50, "only \(states) states")
        // The race is in the bound: after the week's end, it moves the week twice, and says so.
        guard case .success(let over) = await model.apply(.endWeek, to: model.initial),
              case .success(let raced) = await model.apply(.race(goal: 1), to: over) else {
            Issue.record("the race broke an invariant")
            return
        }
        #expect(raced.applied.count == 2 && raced.detected == ["p0"])
        // A later run after the race moves nothing more.
        guard case .success(let later) = await model.apply(.run(machine: 1, goal: 2, fault: .none), to: raced) else {
            Issue.record("a later run broke an invariant")
            return
        }
        #expect(later.applied.count == 2)
    }

    /// The marked variant's model catches a source that sends without looking first.
    @Test func theModelCatchesAMarkedSaveWithoutTheCheck() async {
        let model = SaveProtocolModel(bounds: .init(machines: 2, depth: 3, payments: [435], signIns: 0), markedServer: true, skipCheck: true)
        let (_, violation) = await model.explore()
        #expect(violation?.contains("moved 2 times") == true, "\(violation ?? "no violation")")
    }
}

/// Issue 47: the rules' save protocol explored exhaustively (`RulesProtocolModel`): several rules
/// in one week, two machines, crashes at every step, a lost request or answer of each transfer, a
/// floor that changes between runs and a rule edited between runs. A larger bound with
/// `QT_RULES_MODEL=MACHINES,DEPTH`.
@Suite(.timeLimit(.minutes(5))) struct RulesProtocolModelTests {
    @Test func everyRulesWeekMovesOnceUnderTheFloorOfItsRun() async {
        var bounds = RulesProtocolModel.Bounds(machines: 2, depth: 3, limit: nil)
        if let text = ProcessInfo.processInfo.environment["QT_RULES_MODEL"] {
            let numbers = text.split(separator: ",").compactMap { Int($0) }
            if numbers.count == 2, (1...4).contains(numbers[0]), (1...8).contains(numbers[1]) {
                (bounds.machines, bounds.depth) = (numbers[0], numbers[1])
            }
            print("rules model: \(bounds.machines) machines, depth \(bounds.depth)")
        }
        let model = RulesProtocolModel(bounds: bounds)
        let (states, violation) = await model.explore()
        if ProcessInfo.processInfo.environment["QT_RULES_MODEL"] != nil { print("rules model: \(states) states, \(violation ?? "nothing broken")") }
        #expect(violation == nil, "\(violation ?? "")")
        #expect(states > 200, "only \(states) states")
    }

    /// Under a $3.50 weekly limit (the round-ups and coffee at $2.00 fit; coffee at $3.00 or the
    /// $5.00 a week never does): the week never passes it, and what fits moves once.
    @Test func underAWeeklyLimitEveryRunLeavesTheWeekWithinIt() async {
        let model = RulesProtocolModel(bounds: .init(machines: 2, depth: 3, limit: 350))
        let (states, violation) = await model.explore()
        #expect(violation == nil, "\(violation ?? "")")
        #expect(states > 200, "only \(states) states")
    }

    /// The bound reaches what it is for: a floor that holds a rule, a lost answer sent again
    /// after the edit, and a second machine that moves nothing more.
    @Test func theBoundHoldsAFloorAnEditAndASecondMachine() async throws {
        let model = RulesProtocolModel(bounds: .init(machines: 2, depth: 4, limit: nil))
        func after(_ actions: [RulesProtocolModel.Action]) async throws -> RulesProtocolModel.State {
            var state = model.initial
            for action in actions {
                guard case .success(let next) = await model.apply(action, to: state) else { throw CancellationError() }
                state = next
            }
            return state
        }
        // Under a $6.50 floor only the round-ups fit ($9.00 − $1.45); then, lifted, the rest.
        let held = try await after([.floor(650), .run(machine: 0, fault: .none)])
        #expect(held.applied.map(\.rule) == ["round-ups"])
        let lifted = try await after([.floor(650), .run(machine: 0, fault: .none), .floor(nil), .run(machine: 1, fault: .none)])
        #expect(lifted.applied.map(\.rule) == ["round-ups", "coffee", "weekly"])
        // The second machine finds the round-ups moved by the first (the bank's replay: saved
        // elsewhere) and moves the two the floor held, as its own.
        #expect(lifted.roundUpRecords[1].map(\.state) == [.savedElsewhere], "\(lifted.roundUpRecords[1])")
        #expect(lifted.ruleRecords[1].map(\.state) == [.saved, .saved], "\(lifted.ruleRecords[1])")
        // Coffee's request lost: in the first machine's record, never at the bank. Edited to
        // $3.00, the other machine's $3.00 does not fit the $2.55 left and is held; the first
        // machine's resend of its $2.00, checked as a first send, fits and moves once.
        let edited = try await after([.run(machine: 0, fault: .lostRequest(1)), .edit, .run(machine: 1, fault: .none),
                                      .run(machine: 0, fault: .none)])
        #expect(edited.applied.map(\.amount) == [145, 500, 200])
        #expect(edited.ruleRecords[0].contains { $0.rule == "coffee" && $0.state == .saved }, "\(edited.ruleRecords)")
        #expect(!edited.ruleRecords[1].contains { $0.rule == "coffee" }, "\(edited.ruleRecords)")
        // A transfer that never reached the bank, resent under a floor it no longer fits, is held.
        let stillHeld = try await after([.run(machine: 0, fault: .lostRequest(2)), .floor(300), .run(machine: 0, fault: .none)])
        #expect(stillHeld.applied.map(\.rule) == ["round-ups", "coffee"], "\(stillHeld.applied)")
    }

    /// And a settler that ignores the limit passes it.
    @Test func theModelCatchesASettlerThatIgnoresTheLimit() async {
        var model = RulesProtocolModel(bounds: .init(machines: 1, depth: 1, limit: 350))
        model.ignoreLimit = true
        let (_, violation) = await model.explore()
        #expect(violation?.contains("weekly limit") == true, "\(violation ?? "no violation")")
    }

    /// The model catches what it is for: a settler that ignores the floor crosses it.
    @Test func theModelCatchesASettlerThatIgnoresTheFloor() async {
        var model = RulesProtocolModel(bounds: .init(machines: 1, depth: 2, limit: nil))
        model.ignoreFloor = true
        let (_, violation) = await model.explore()
        #expect(violation?.contains("under the") == true, "\(violation ?? "no violation")")
    }
}
