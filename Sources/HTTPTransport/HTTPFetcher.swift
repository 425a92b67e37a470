import Dispatch
import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request at a time through a delegate-driven `URLSession`, with what `data(for:)` lacks:
///
/// - Cancelling never deadlocks. Foundation on Linux (swift-corelibs-foundation before
///   PR #5417, issue #5412) cancels an awaited `data(for:)` while holding the Swift task's status
///   lock and then waits for the session's queue, while that queue, finishing the same request,
///   waits for the lock: the thread that cancelled (often the main actor) hangs for good. Here
///   the cancellation handler only schedules `URLSessionTask.cancel()` on another queue.
/// - The body is read with a limit while it arrives (`maxBytes`), and a total deadline ends a
///   request that drips (the session's own timeout is only an idle timeout).
/// - Redirects follow `RedirectPolicy`: a token never goes to another origin, https never
///   becomes http.
///
/// The session is invalidated when the fetcher goes away.
final class HTTPFetcher: Sendable {
    /// What a redirect may do.
    enum RedirectPolicy: Sendable {
        /// API requests: only within the origin (scheme, host and port) the request went to.
        case sameOrigin
        /// Pictures (sent without a token): anywhere, but never from https to http.
        case noDowngrade
    }

    struct Limits: Sendable {
        /// Bodies larger than this are refused while they arrive.
        var maxBytes: Int
        /// The whole request, from start to the last byte.
        var deadline: TimeInterval
        var redirects: RedirectPolicy
    }

    /// Why a request ended without an answer.
    enum Failure: Error, Sendable {
        case tooLarge(limit: Int)
        case deadline(TimeInterval)
        /// A redirect the policy refused: to this origin ("http://host:port").
        case redirectRefused(to: String)
        case cancelled
        case transport(any Error)
    }

    private let session: URLSession
    private let table: Table

    /// Foundation's URL cache, off. `URLSessionConfiguration.ephemeral` (and `.default` with the
    /// stock shared cache) create `~/.cache/org.swift.foundation.URLCache/<name>` on Linux, even
    /// with a disk capacity of 0. The shared cache is replaced, once, before any configuration
    /// exists, by one that keeps nothing and whose path can never become a directory.
    private static let noFoundationCache: Void = {
        URLCache.shared = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: "/dev/null")
    }()

    /// `idleTimeout`: how long the connection may stay silent.
    init(idleTimeout: TimeInterval, maxConnectionsPerHost: Int) {
        _ = HTTPFetcher.noFoundationCache
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        let table = Table()
        self.table = table
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: Delegate(table: table), delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns the whole body of whatever status came back.
    func fetch(_ request: URLRequest, limits: Limits) async throws(Failure) -> (Data, HTTPURLResponse) {
        let handle = CancelHandle()
        let outcome: Result<(Data, HTTPURLResponse), Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<(Data, HTTPURLResponse), Failure>, Never>) in
                let task = session.dataTask(with: request)
                let origin = Origin(request.url)
                table.insert(task.taskIdentifier, Entry(continuation: continuation, limits: limits, origin: origin))
                guard handle.started(task) else {
                    // Cancelled before it began: nothing went out.
                    table.finish(task.taskIdentifier, with: .failure(.cancelled))
                    return
                }
                task.resume()
                let identifier = task.taskIdentifier
                let table = self.table
                DispatchQueue.global().asyncAfter(deadline: .now() + limits.deadline) {
                    if table.fail(identifier, .deadline(limits.deadline)) { task.cancel() }
                }
            }
        } onCancel: {
            // Never cancel the URLSessionTask here: this runs under the task's status lock,
            // and `cancel()` waits for the session's queue (see the type's comment).
            if let task = handle.cancel() {
                DispatchQueue.global().async { task.cancel() }
            }
        }
        return try outcome.get()
    }

    /// Whether a redirect from `origin` to `target` may be followed under `policy`.
    static func allows(redirect policy: RedirectPolicy, from origin: Origin, to target: Origin) -> Bool {
        switch policy {
        case .sameOrigin: target == origin
        case .noDowngrade: !(origin.scheme == "https" && target.scheme != "https")
        }
    }

    // MARK: - State shared with the delegate

    /// A request's origin: what a token is bound to.
    struct Origin: Equatable, Sendable, CustomStringConvertible {
        let scheme: String
        let host: String
        let port: Int

        init(_ url: URL?) {
            scheme = url?.scheme?.lowercased() ?? ""
            host = url?.host?.lowercased() ?? ""
            port = url?.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String { "\(scheme)://\(host):\(port)" }
    }

    fileprivate struct Entry {
        let continuation: CheckedContinuation<Result<(Data, HTTPURLResponse), Failure>, Never>
        let limits: Limits
        let origin: Origin
        var body = Data()
    }

    /// The requests in flight, by task identifier. Whoever removes an entry resumes it, once:
    /// the fetcher's own refusals (limit, deadline, redirect) answer at once, without waiting
    /// for URLSession to wind the transfer down; what arrives for a removed entry is dropped.
    final class Table: Sendable {
        private let entries = Locked<[Int: Entry]>([:])

        fileprivate func insert(_ identifier: Int, _ entry: Entry) {
            entries.withLock { $0[identifier] = entry }
        }

        /// Ends the request with `result` (unless it ended already).
        fileprivate func finish(_ identifier: Int, with result: Result<(Data, HTTPURLResponse), Failure>) {
            let entry = entries.withLock { $0.removeValue(forKey: identifier) }
            entry?.continuation.resume(returning: result)
        }

        /// Ends the request with `failure` now; false if it had ended already.
        fileprivate func fail(_ identifier: Int, _ failure: Failure) -> Bool {
            guard let entry = entries.withLock({ $0.removeValue(forKey: identifier) }) else { return false }
            entry.continuation.resume(returning: .failure(failure))
            return true
        }

        /// Appends arrived bytes; false (and the request ended as too large) past the limit.
        fileprivate func append(_ identifier: Int, _ data: Data) -> Bool {
            let over = entries.withLock { entries -> Entry? in
                // Taken out while it grows, so the body is never copied.
                guard var entry = entries.removeValue(forKey: identifier) else { return nil }
                if entry.body.count + data.count > entry.limits.maxBytes { return entry }
                entry.body.append(data)
                entries[identifier] = entry
                return nil
            }
            guard let over else { return true }
            over.continuation.resume(returning: .failure(.tooLarge(limit: over.limits.maxBytes)))
            return false
        }

        fileprivate func limits(_ identifier: Int) -> (Limits, Origin)? {
            entries.withLock { entries in entries[identifier].map { ($0.limits, $0.origin) } }
        }

        /// The request ended (as URLSession says): resumes it with its body, or why it failed.
        fileprivate func complete(_ identifier: Int, response: URLResponse?, error: (any Error)?) {
            guard let entry = entries.withLock({ $0.removeValue(forKey: identifier) }) else { return }
            let result: Result<(Data, HTTPURLResponse), Failure>
            if let error {
                if let urlError = error as? URLError, urlError.code == .cancelled {
                    result = .failure(.cancelled)
                } else {
                    result = .failure(.transport(error))
                }
            } else if let http = response as? HTTPURLResponse {
                result = .success((entry.body, http))
            } else {
                result = .failure(.transport(URLError(.badServerResponse)))
            }
            entry.continuation.resume(returning: result)
        }
    }

    /// Whether the Swift task was cancelled before or after its URLSessionTask started.
    private final class CancelHandle: Sendable {
        private enum State { case waiting, started(URLSessionTask), cancelled }
        private let state = Locked<State>(.waiting)

        /// Records the started task; false when the Swift task was cancelled first.
        func started(_ task: URLSessionTask) -> Bool {
            state.withLock { state in
                if case .cancelled = state { return false }
                state = .started(task)
                return true
            }
        }

        /// Records the cancellation; returns the task to cancel, if it started.
        func cancel() -> URLSessionTask? {
            state.withLock { state in
                defer { state = .cancelled }
                if case .started(let task) = state { return task }
                return nil
            }
        }
    }

    /// URLSession's callbacks, on the session's serial delegate queue.
    private final class Delegate: NSObject, URLSessionDataDelegate {
        let table: Table

        init(table: Table) { self.table = table }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            // A declared length past the limit is refused before any of the body is read.
            if let (limits, _) = table.limits(dataTask.taskIdentifier), response.expectedContentLength > Int64(limits.maxBytes),
               table.fail(dataTask.taskIdentifier, .tooLarge(limit: limits.maxBytes)) {
                completionHandler(.cancel)
                DispatchQueue.global().async { dataTask.cancel() }
                return
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if !table.append(dataTask.taskIdentifier, data) {
                // Not `cancel()` in line: it waits for the session's queue.
                DispatchQueue.global().async { dataTask.cancel() }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            guard let (limits, origin) = table.limits(task.taskIdentifier) else {
                completionHandler(nil)
                return
            }
            let target = Origin(request.url)
            if HTTPFetcher.allows(redirect: limits.redirects, from: origin, to: target) {
                completionHandler(request)
            } else {
                _ = table.fail(task.taskIdentifier, .redirectRefused(to: target.description))
                completionHandler(nil)
                DispatchQueue.global().async { task.cancel() }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            table.complete(task.taskIdentifier, response: task.response, error: error)
        }
    }
}
