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
}
