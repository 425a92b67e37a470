import DemoData
import FeedModel
import Foundation
import NIOConcurrencyHelpers

/// Answers every endpoint of docs/api.md from a `DemoBackend`, as JSON.
///
/// Errors are JSON too: `{"error": "…"}` with 400 (bad query or body), 404 (unknown path, goal
/// or user), 405 (known path, other method), 409 (a transfer id reused for another transfer).
public struct DemoAPIHandler: ServeHandler {
    let backend: DemoBackend
    private let cache = AnswerCache()

    public init(backend: DemoBackend) {
        self.backend = backend
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        guard request.method == "GET" else { return await answer(request) }
        // The revision is read before the data, so a kept answer is never older than the data
        // was when the request came.
        let revision = await backend.revision
        let key = (DemoAPIHandler.imageBase(request) ?? "") + " " + request.target
        if let kept = cache.answer(for: key, revision: revision) { return kept }
        let answer = await answer(request)
        if answer.status == 200 { cache.keep(answer, for: key, revision: revision) }
        return answer
    }

    private func answer(_ request: ServeRequest) async -> ServeResponse {
        do {
            return try await route(request)
        } catch let error as Failure {
            return .error(error.status, error.message)
        } catch let error as APIError {
            return DemoAPIHandler.response(for: error)
        } catch {
            return .error(500, "\(error)")
        }
    }

    /// A request this handler refuses, with the status and the message the client reads.
    public struct Failure: Error {
        public let status: Int
        public let message: String

        static func badRequest(_ message: String) -> Failure { Failure(status: 400, message: message) }
    }

    private func route(_ request: ServeRequest) async throws -> ServeResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = request.method
        let base = DemoAPIHandler.imageBase(request)
        switch segments.count {
        case 3 where segments[0] == "images":
            try DemoAPIHandler.allow(["GET"], method)
            let path = "/" + segments.joined(separator: "/")
            if segments[1] == "photos", let photo = await backend.photo(atPath: path) {
                return .data(photo, contentType: path.hasSuffix(".png") ? "image/png" : "image/jpeg")
            }
            guard let png = DemoImages.png(atPath: path) else {
                throw Failure(status: 404, message: "no such image: \(TextSanitizer.clean(request.path))")
            }
            return .data(png, contentType: "image/png")
        case 1 where segments[0] == "savingsgoals":
            if method == "GET" { return ServeResponse.json(GoalList(savingsGoals: await backend.goals().map { DemoAPIHandler.served($0, base: base) })) }
            try DemoAPIHandler.allow(["GET", "POST"], method)
            return ServeResponse.json(DemoAPIHandler.served(try await createGoal(request.body), base: base), status: 201)
        case 3 where segments[0] == "savingsgoals" && segments[2] == "feed":
            try DemoAPIHandler.allow(["GET"], method)
            let goalId = GoalID(try DemoAPIHandler.id(segments[1], of: "goal"))
            return ServeResponse.json(GoalFeed(feed: try await backend.feed(goalId: goalId)))
        case 3 where segments[0] == "savingsgoals" && segments[2] == "transfers":
            try DemoAPIHandler.allow(["POST"], method)
            let goalId = GoalID(try DemoAPIHandler.id(segments[1], of: "goal"))
            return ServeResponse.json(DemoAPIHandler.served(try await transfer(goalId: goalId, body: request.body), base: base))
        case 1 where segments[0] == "savingsrules":
            try DemoAPIHandler.allow(["GET"], method)
            return ServeResponse.json(RuleList(savingsRules: await backend.rules()))
        case 2 where segments[0] == "users":
            try DemoAPIHandler.allow(["GET"], method)
            let userId = try DemoAPIHandler.id(segments[1], of: "user")
            return ServeResponse.json(DemoAPIHandler.served(try await backend.user(id: userId), base: base))
        case 1 where segments[0] == "activities":
            try DemoAPIHandler.allow(["GET"], method)
            let (from, to) = try DemoAPIHandler.window(request.rawQuery)
            return ServeResponse.json(try await backend.activities(from: from, to: to))
        case 1 where segments[0] == "transactions":
            try DemoAPIHandler.allow(["GET"], method)
            let (from, to) = try DemoAPIHandler.window(request.rawQuery)
            return ServeResponse.json(TransactionList(transactions: await backend.transactions(from: from, to: to)))
        default:
            throw Failure(status: 404, message: "no such endpoint: \(TextSanitizer.clean(request.path))")
        }
    }

    // MARK: - Pictures

    /// `http://<the Host the client used>`, so picture URLs work whatever port `serve` got.
    static func imageBase(_ request: ServeRequest) -> String? {
        guard let host = request.headers["Host"], !host.isEmpty,
              host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) }) else { return nil }
        return "http://" + host
    }

    /// The dataset's `demo:/images/…` URL as one this server answers (none without a Host).
    static func servedURL(_ url: URL?, base: String?) -> URL? {
        guard let url, url.scheme == DemoImages.scheme else { return url }
        return base.flatMap { URL(string: $0 + url.path) }
    }

    static func served(_ goal: Goal, base: String?) -> Goal {
        var goal = goal
        goal.imageURL = servedURL(goal.imageURL, base: base)
        return goal
    }

    static func served(_ user: User, base: String?) -> User {
        var user = user
        user.avatarURL = servedURL(user.avatarURL, base: base)
        return user
    }

    // MARK: - POST bodies

    private struct NewGoalBody: Decodable {
        let name: String
        let targetAmount: Decimal?
        let base64EncodedPhoto: String?
    }

    private struct TransferBody: Decodable {
        let transferId: String
        let amount: Decimal
        /// The savings rule that moves it (`GET /savingsrules`), optional.
        let savingsRuleId: Int?
    }

    private func createGoal(_ body: Data) async throws -> Goal {
        let fields = try DemoAPIHandler.decode(NewGoalBody.self, from: body)
        let currency = await backend.currency
        let target = try fields.targetAmount.map { try DemoAPIHandler.money($0, currency: currency, field: "targetAmount") }
        let photo = try fields.base64EncodedPhoto.map { text in
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw Failure.badRequest("base64EncodedPhoto: not base64")
            }
            return data
        }
        return try await backend.createGoal(name: fields.name, target: target, photo: photo)
    }

    private func transfer(goalId: GoalID, body: Data) async throws -> Goal {
        let fields = try DemoAPIHandler.decode(TransferBody.self, from: body)
        guard let transferId = UUID(uuidString: fields.transferId) else {
            throw Failure.badRequest("transferId: not a UUID: \"\(TextSanitizer.clean(String(fields.transferId.prefix(40))))\"")
        }
        let amount = try DemoAPIHandler.money(fields.amount, currency: await backend.currency, field: "amount")
        if let rule = fields.savingsRuleId, !(await backend.rules().contains { $0.id == rule }) {
            throw Failure.badRequest("savingsRuleId: no such rule: \(rule)")
        }
        return try await backend.transfer(goalId: goalId, transferId: transferId, amount: amount, savingsRuleId: fields.savingsRuleId)
    }

    private static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch let DecodingError.keyNotFound(key, _) {
            throw Failure.badRequest("\(key.stringValue): missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw Failure.badRequest("\(field.isEmpty ? "the body" : field): wrong type")
        } catch {
            throw Failure.badRequest("the body is not JSON")
        }
    }

    /// An amount exactly as sent: more decimals than the currency has is refused, not rounded.
    private static func money(_ decimal: Decimal, currency: Currency, field: String) throws -> Money {
        guard let money = Money(decimal: decimal, currency: currency), money.decimalValue == decimal else {
            throw Failure.badRequest("\(field): not an amount of \(currency.code) with at most \(currency.minorDigits) decimals")
        }
        return money
    }

    // MARK: - Paths and queries

    private static func allow(_ methods: [String], _ method: String) throws {
        guard methods.contains(method) else {
            throw Failure(status: 405, message: "\(TextSanitizer.clean(String(method.prefix(20)))) not allowed here (use \(methods.joined(separator: " or ")))")
        }
    }

    private static func id(_ text: String, of what: String) throws -> Int {
        guard let id = Int(text) else {
            throw Failure(status: 404, message: "no such \(what): \(TextSanitizer.clean(String(text.prefix(40))))")
        }
        return id
    }

    /// `from` and `to` of a raw (still percent-encoded) query: both required, each once, each a
    /// timestamp in one of the API's two forms, `from ≤ to`.
    static func window(_ rawQuery: String) throws(Failure) -> (from: Date, to: Date) {
        let values = try queryValues(rawQuery)
        let from = try date(values, "from")
        let to = try date(values, "to")
        guard from <= to else { throw .badRequest("from is after to") }
        return (from, to)
    }

    /// Decodes a query as a form: `+` is a space, `%2B` is a plus. So a client that forgets to
    /// encode the offset's `+` gets a 400 instead of a date an hour off.
    public static func queryValues(_ rawQuery: String) throws(Failure) -> [String: String] {
        var values: [String: String] = [:]
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(parts[0]), let value = decodeComponent(parts.count > 1 ? parts[1] : "") else {
                throw .badRequest("malformed percent-encoding in the query")
            }
            guard values[name] == nil else { throw .badRequest("\(TextSanitizer.clean(name)) given twice") }
            values[name] = value
        }
        return values
    }

    private static func decodeComponent(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func date(_ values: [String: String], _ name: String) throws(Failure) -> Date {
        guard let text = values[name] else {
            throw .badRequest("\(name) is missing (expected e.g. \(name)=2016-10-04T00:00:00%2B00:00)")
        }
        guard let date = Timestamp.parse(text) else {
            let hint = text.contains(" ") ? "; a + must be sent as %2B" : ""
            throw .badRequest("\(name): not a date: \"\(TextSanitizer.clean(String(text.prefix(40))))\" (expected e.g. 2016-10-04T00:00:00+00:00\(hint))")
        }
        return date
    }

    // MARK: - Responses

    /// The backend's errors carry their status; the body says what came after "HTTP nnn: "
    /// ("POST /savingsgoals: HTTP 400: a name is required" answers 400 "a name is required").
    static func response(for error: APIError) -> ServeResponse {
        let code = error.status ?? (error.kind == .notFound ? 404 : 500)
        let status = [400, 404, 409].contains(code) ? code : 500
        var message = error.message
        for prefix in ["\(error.request): HTTP \(code): ", "\(error.request): "] where message.hasPrefix(prefix) {
            message = String(message.dropFirst(prefix.count))
            break
        }
        // docs/api.md: a 404 names what was not found ("GET /savingsgoals/99/feed: not found").
        if status == 404 { message = "\(error.request): not found" }
        return .error(status, message)
    }
}

/// GET answers already encoded, for the backend's current revision: encoding JSON (amounts as
/// Decimal) is most of a request's cost, and the same target on the same Host gets the same
/// bytes until the data changes. Bounded: emptied when full or when the revision moves.
final class AnswerCache: Sendable {
    static let capacity = 512

    private struct State {
        var revision = -1
        var answers: [String: ServeResponse] = [:]
    }

    private let state = NIOLockedValueBox(State())

    func answer(for key: String, revision: Int) -> ServeResponse? {
        state.withLockedValue { $0.revision == revision ? $0.answers[key] : nil }
    }

    func keep(_ answer: ServeResponse, for key: String, revision: Int) {
        state.withLockedValue {
            guard revision >= $0.revision else { return }  // made before a change another request saw
            if $0.revision != revision || $0.answers.count >= AnswerCache.capacity {
                $0.answers.removeAll(keepingCapacity: true)
                $0.revision = revision
            }
            $0.answers[key] = answer
        }
    }

    var count: Int { state.withLockedValue { $0.answers.count } }
}
