import ArgumentParser
import DemoData
import FeedCache
import FeedModel
import Foundation

extension AppOptions {
    /// The demo's saves in the data folder (nil without one); `--reset-demo` forgets them and the
    /// demo's record of saved weeks first.
    func demoSaves(environment: [String: String]) throws -> DemoSavesFile? {
        guard let directory = DemoSavesFile.defaultDirectory(environment: environment) else { return nil }
        let file = DemoSavesFile(directory: directory)
        if resetDemo {
            do {
                try file.reset()
                try RoundUpRecordFile(directory: directory, identity: .demo).removeAll()
                try RoundUpRecordFile(directory: directory, identity: .demo, kind: "rules").removeAll()
            } catch {
                throw ValidationError("the demo's saves in \(directory.path) cannot be removed (\(error))")
            }
        }
        return file
    }
}
