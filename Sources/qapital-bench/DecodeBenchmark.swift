import FeedModel
import Foundation

/// Activities per second through `PayloadDecoder`, the decoder the HTTP client uses, on one
/// large `/activities` answer.
enum DecodeBenchmark {
    struct Figure {
        let activities: Int
        let bytes: Int
        let seconds: Double
        var perSecond: Double { Double(activities) / seconds }
    }

    static func run(activities count: Int, runs: Int) throws -> Figure {
        let now = Date()
        let page = ActivityPage(oldest: now.addingTimeInterval(-86_400 * 500),
                                activities: BulkActivityAPI.activities(count: count, newest: now, spacing: 60))
        let data = try JSONEncoder().encode(page)
        let decoder = PayloadDecoder()
        var best = Double.infinity
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let decoded = try decoder.decode(ActivityPage.self, from: data, resource: "GET /activities")
            let seconds = (ContinuousClock.now - start).milliseconds / 1_000
            precondition(decoded.activities.count == count)
            best = min(best, seconds)
        }
        return Figure(activities: count, bytes: data.count, seconds: best)
    }
}
