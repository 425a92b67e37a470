import DemoServer
import FeedModel
import Foundation
import HTTPTransport

/// The browser half of every sign-in at a bank's page (an OAuth client's, a consent's): a
/// listener on the loopback redirect opened first, the sign-in started (which asks the server,
/// so it may fail: then nothing is opened), the address said and opened, then the browser's
/// return waited for, or an address pasted (`--paste`, or while listening on the app's screen),
/// each read by `SignInRedirect` against this sign-in's `state`.
public enum RedirectSignIn {
    /// What the wait gave: the code, and the redirect URL as sent (its port bound when it said 0).
    public struct Given: Sendable {
        public let code: String
        public let redirect: String
    }

    /// Runs the browser half. `redirect`: where the bank sends the browser back; a loopback
    /// `http` address is listened on (port 0: any free port, and the redirect sent says which),
    /// anything else (or `request.paste`) is pasted. `start` makes the bank's address for the
    /// redirect and `state`. `bank`: the bank's name in the lines said.
    public static func run(_ request: ConsentSignInRequest, redirect: String, state: String, bank: String,
                           start: @Sendable (_ redirect: String) async throws(APIError) -> URL) async throws(APIError) -> Given {
        // The listener first, so that a fast bank cannot come back before it listens.
        var listening: (server: DemoHTTPServer, listener: RedirectListener)?
        var sent = redirect
        if !request.paste, let url = URL(string: redirect), SignInRedirect.isLoopback(redirect) {
            let listener = RedirectListener(path: url.path.isEmpty ? "/" : url.path, state: state, bank: bank, note: request.note)
            let host = url.host == "localhost" ? "127.0.0.1" : (url.host ?? "127.0.0.1").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            do {
                let server = try DemoHTTPServer(handler: listener, host: host, port: UInt16(url.port ?? 80))
                try await server.start()
                listening = (server, listener)
                if url.port == 0, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                    components.port = await server.baseURL.port
                    sent = components.string ?? redirect
                }
            } catch {
                throw APIError(kind: .rejected, request: "sign-in",
                               message: "cannot listen on \(TextSanitizer.clean(redirect)) (\(error)): use --paste, or another --redirect-url")
            }
        }
        let address: URL
        do {
            address = try await start(sent)
        } catch {
            await listening?.server.stop()
            throw error
        }
        request.say("Open this address in a browser to sign in at \(bank):")
        request.say(address.absoluteString)
        request.open(address)

        guard let listening else { return Given(code: try await paste(request, state: state, bank: bank), redirect: sent) }
        if !request.pasteWhileListening { request.note("Waiting for the browser to come back to \(TextSanitizer.clean(sent)) …") }
        // The app's screen: a pasted address counts as the browser's return, same checks.
        let reader: Task<Void, Never>? = request.pasteWhileListening ? Task {
            while let line = await request.readLine() {
                if await listening.listener.offer(line) { return }
            }
        } : nil
        let outcome = await listening.listener.wait(seconds: request.timeout)
        reader?.cancel()
        // The browser's request that ended the wait gets its page (stopped at once, it would get 503).
        await listening.server.stop(grace: .seconds(5))
        switch outcome {
        case .code(let code):
            return Given(code: code, redirect: sent)
        case .refused(let reason):
            throw APIError(kind: .rejected, request: "sign-in", message: "\(bank) did not give access: \(reason)")
        case .timedOut:
            throw APIError(kind: .timedOut, request: "sign-in", message: "no answer from the browser within \(Int(request.timeout)) s")
        case .cancelled:
            throw APIError(kind: .rejected, request: "sign-in", message: "the sign-in was cancelled")
        }
    }

    /// Reads the address the browser was sent to from standard input until it is this sign-in's.
    static func paste(_ request: ConsentSignInRequest, state: String, bank: String) async throws(APIError) -> String {
        request.say("Then paste here the whole address the browser was sent to (it may show an error page):")
        while let line = await request.readLine() {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            switch SignInRedirect.read(line, state: state) {
            case .code(let code): return code
            case .refused(let reason): throw APIError(kind: .rejected, request: "sign-in", message: "\(bank) did not give access: \(reason)")
            case .foreign: request.note("refused: not from this sign-in; paste the address of this sign-in")
            case .unreadable: request.note("no code in that address; paste the whole address")
            }
        }
        throw APIError(kind: .rejected, request: "sign-in", message: "not signed in: no address was pasted")
    }
}

/// Answers the browser's return on the redirect's path: another `state` is refused (400) and
/// the wait goes on; this sign-in's code or error ends it.
public actor RedirectListener: ServeHandler {
    public enum Outcome: Sendable, Equatable {
        case code(String)
        case refused(String)
        case timedOut
        /// The task waiting was cancelled (Esc on the app's sign-in screen).
        case cancelled
    }

    private let path: String
    private let state: String
    private let bank: String
    private let note: @Sendable (String) -> Void
    private var outcome: Outcome?
    private var waiters: [CheckedContinuation<Outcome, Never>] = []

    public init(path: String, state: String, bank: String, note: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.state = state
        self.bank = bank
        self.note = note
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        guard request.method == "GET", request.path == path else { return .error(404, "not found") }
        guard outcome == nil else { return page(409, "This sign-in is over; go back to the terminal.") }
        switch SignInRedirect.read("?" + request.rawQuery, state: state) {
        case .foreign, .unreadable:
            note("refused a return that is not from this sign-in")
            return page(400, "refused: not from this sign-in")
        case .refused(let reason):
            finish(.refused(reason))
            return page(200, "\(bank) did not give access: \(reason). Go back to the terminal.")
        case .code(let code):
            finish(.code(code))
            return page(200, "signed in, close this tab")
        }
    }

    /// An address pasted in the app: what the browser's return would do, without the page.
    /// Whether it ended the wait (another sign-in's or an unreadable address does not).
    public func offer(_ line: String) -> Bool {
        guard outcome == nil else { return true }
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        switch SignInRedirect.read(line, state: state) {
        case .foreign:
            note("refused: not from this sign-in; paste the address of this sign-in")
            return false
        case .unreadable:
            note("no code in that address; paste the whole address")
            return false
        case .refused(let reason):
            finish(.refused(reason))
        case .code(let code):
            finish(.code(code))
        }
        return true
    }

    private func page(_ status: Int, _ text: String) -> ServeResponse {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return .data(Data("<!doctype html><title>qapital-tui</title><p>\(escaped)</p>\n".utf8), contentType: "text/html; charset=utf-8",
                     status: status)
    }

    private func finish(_ result: Outcome) {
        guard outcome == nil else { return }
        outcome = result
        for waiter in waiters { waiter.resume(returning: result) }
        waiters = []
    }

    /// This sign-in's outcome, or `.timedOut` after `seconds`, or `.cancelled` when the task
    /// waiting is (the listener is then stopped by the caller, as after any outcome).
    public func wait(seconds: TimeInterval) async -> Outcome {
        if let outcome { return outcome }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            await self?.finish(.timedOut)
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { waiters.append($0) }
        } onCancel: {
            Task { await self.finish(.cancelled) }
        }
        timer.cancel()
        return result
    }
}
