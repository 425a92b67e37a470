import FlyingFox
import Foundation

/// Carries `StarlingDemoAPI` over FlyingFox (the logic itself knows no HTTP stack).
struct StarlingHTTPHandler: HTTPHandler {
    let api: StarlingDemoAPI

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = await api.answer(StarlingDemoAPI.Request(
            method: request.method.rawValue, path: request.target.path(percentEncoded: true), rawQuery: request.target.query(),
            authorization: request.headers[.authorization], body: try await request.bodyData))
        return HTTPResponse(statusCode: HTTPStatusCode(answer.status, phrase: StarlingHTTPHandler.phrase(answer.status)),
                            headers: [.contentType: answer.contentType], body: answer.body)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        default: "Internal Server Error"
        }
    }
}

extension DemoHTTPServer {
    /// `serve --api starling`: the demo in Starling's shapes, behind the same latency, faults and log.
    public init(starling api: StarlingDemoAPI, host: String = "127.0.0.1", port: UInt16 = 0, options: Options = Options()) throws {
        try self.init(handler: StarlingHTTPHandler(api: api), host: host, port: port, options: options)
    }
}
