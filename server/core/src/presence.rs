//! Presence of a log's realm: which connection serves the log, whether it
//! answers, and, once it left, the `closed` (or a Node process's
//! `exited`) line due unless a new document connects within the grace
//! (docs/log-format.md, "Lifecycle lines"). Pure: `handle_*` in, what the
//! log should say out, time and the wall clock passed in.

use std::time::Duration;

use crate::engine::{Millis, Now};

use daebug_protocol::RealmKind;

use crate::delivery::ConnId;
use crate::engine::lifecycle::Lifecycle;
use crate::engine::ClockTime;

/// How long a page that said it is leaving has to connect its next
/// document before its log says `closed`.
pub const LEAVING_GRACE: Duration = Duration::from_secs(5);
/// The same for a connection that closed without a word (a worker goes
/// with its page; a dropped socket): longer than the adapter's longest
/// wait between reconnects (10 s), so a reconnect is not taken for a close.
pub const DROPPED_GRACE: Duration = Duration::from_secs(12);

/// What the log should say about its realm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// The engine's `Input::Presence`: why the realm is away, or `None`
    /// once it is back.
    Away(Option<String>),
    /// A lifecycle line: `closed`, or `exited` (with how), at a time
    /// (`None`: now).
    Line {
        what: Lifecycle,
        how: String,
        at: Option<ClockTime>,
    },
}

/// See the module docs.
#[derive(Debug)]
pub struct Presence {
    kind: RealmKind,
    conn: Option<ConnId>,
    /// When the `closed` line is due, and when the realm left.
    closing: Option<(Millis, ClockTime)>,
    /// The Node process said it exited, and the log says so: no `closed`
    /// line when its socket then closes.
    exited: bool,
}

impl Presence {
    pub fn new(kind: RealmKind) -> Presence {
        Presence {
            kind,
            conn: None,
            closing: None,
            exited: false,
        }
    }

    pub fn kind(&self) -> RealmKind {
        self.kind
    }

    /// The connection that serves the log, if any.
    pub fn conn(&self) -> Option<ConnId> {
        self.conn
    }

    /// Whether `conn` serves the log.
    pub fn serves(&self, conn: ConnId) -> bool {
        self.conn == Some(conn)
    }

    /// When the `closed` line is due.
    pub fn deadline(&self) -> Option<Millis> {
        self.closing.map(|(at, _)| at)
    }

    /// The hub started with no realm for this log.
    pub fn handle_start(&self) -> Option<Said> {
        self.conn
            .is_none()
            .then(|| Said::Away(Some(self.away("disconnected"))))
    }

    /// A document connected: no `closed` line comes; the log hears it is
    /// back once its jobs were handed over (see [`Presence::back`]).
    pub fn handle_attach(&mut self, conn: ConnId, kind: RealmKind) {
        self.kind = kind;
        self.conn = Some(conn);
        self.closing = None;
        self.exited = false;
    }

    /// What the log says once an attached realm has its jobs.
    pub fn back(&self) -> Said {
        Said::Away(None)
    }

    /// The serving connection closed without a word (delivery decides
    /// whether it was the serving one).
    pub fn handle_dropped(&mut self, now: Now) -> Said {
        self.leave(DROPPED_GRACE, now);
        self.conn = None;
        Said::Away(Some(self.away("disconnected")))
    }

    /// The document said it is leaving (navigated away, closed; a Node
    /// process that ended).
    pub fn handle_left(&mut self, now: Now) -> Said {
        self.leave(LEAVING_GRACE, now);
        self.conn = None;
        Said::Away(Some(match self.kind {
            RealmKind::Node => self.away("exited"),
            _ => self.away("navigated away or closed"),
        }))
    }

    /// A Node process says it ends (`how`: its code, or empty): what its
    /// running job is told (`Some`: `Input::Left`'s words), and the
    /// `exited` line, now. `None` when `conn` does not serve the log.
    pub fn handle_exiting(&mut self, conn: ConnId, how: &str) -> Option<(String, Said)> {
        if !self.serves(conn) {
            return None;
        }
        let left = match how {
            "" => "the process exited".to_string(),
            how => format!("the process exited ({how})"),
        };
        self.exited = true;
        self.closing = None;
        Some((
            left,
            Said::Line {
                what: Lifecycle::Exited,
                how: how.to_string(),
                at: None,
            },
        ))
    }

    /// The serving connection stopped (or started again) answering pings.
    pub fn handle_responsive(&self, conn: ConnId, responsive: bool) -> Option<Said> {
        if !self.serves(conn) {
            return None;
        }
        Some(Said::Away((!responsive).then(|| {
            format!(
                "the {} stopped answering (busy in a loop?); still waiting",
                kind_name(self.kind)
            )
        })))
    }

    /// The grace ran out with no document back: the `closed` line (a Node
    /// process gone without a word: `exited`), at the time it left.
    pub fn poll_closed(&mut self, now: Millis) -> Option<Said> {
        let (due, at) = self.closing?;
        if now < due {
            return None;
        }
        self.closing = None;
        Some(Said::Line {
            what: match self.kind {
                RealmKind::Node => Lifecycle::Exited,
                _ => Lifecycle::Closed,
            },
            how: String::new(),
            at: Some(at),
        })
    }

    /// The `closed` line becomes due `grace` from now, unless one is due
    /// already (a page that said it leaves keeps its shorter grace when its
    /// socket then closes) or the process said it exited.
    fn leave(&mut self, grace: Duration, now: Now) {
        if self.exited || self.closing.is_some() {
            return;
        }
        self.closing = Some((now.mono + grace, now.clock));
    }

    fn away(&self, what: &str) -> String {
        format!(
            "{} {what}, waiting for it to come back",
            kind_name(self.kind)
        )
    }
}

/// What the log calls a realm of this kind.
pub fn kind_name(kind: RealmKind) -> &'static str {
    match kind {
        RealmKind::Page => "page",
        RealmKind::Worker => "worker",
        RealmKind::Node => "process",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(s: u32) -> ClockTime {
        ClockTime {
            hour: 10,
            minute: 0,
            second: s as u8,
        }
    }

    fn away(text: &str) -> Said {
        Said::Away(Some(text.to_string()))
    }

    #[derive(Debug, Clone, Copy)]
    enum Step {
        Attach(ConnId, RealmKind),
        Dropped,
        Left,
        Exiting(ConnId),
        Responsive(ConnId, bool),
        /// The grace's clock is looked at.
        Poll,
    }

    /// Each row: a kind, the steps (time in seconds), and what the log is
    /// told after each.
    type Row = (&'static str, RealmKind, Vec<(u64, Step)>, Vec<Option<Said>>);

    /// Rows of pages.
    fn page_rows() -> Vec<Row> {
        use RealmKind::*;
        use Step::*;
        let closed = |what, s| Said::Line {
            what,
            how: String::new(),
            at: Some(wall(s)),
        };
        vec![
            (
                "a page that left and came back within the grace: no line",
                Page,
                vec![
                    (0, Attach(1, Page)),
                    (1, Left),
                    (3, Attach(2, Page)),
                    (9, Poll),
                ],
                vec![
                    None,
                    Some(away(
                        "page navigated away or closed, waiting for it to come back",
                    )),
                    None,
                    None,
                ],
            ),
            (
                "a page that left: `closed` after 5 s, at the time it left",
                Page,
                vec![
                    (0, Attach(1, Page)),
                    (1, Left),
                    (5, Poll),
                    (6, Poll),
                    (7, Poll),
                ],
                vec![
                    None,
                    Some(away(
                        "page navigated away or closed, waiting for it to come back",
                    )),
                    None,
                    Some(closed(Lifecycle::Closed, 1)),
                    None,
                ],
            ),
            (
                "a close after `leaving` keeps the shorter grace",
                Page,
                vec![(0, Attach(1, Page)), (1, Left), (2, Dropped), (6, Poll)],
                vec![
                    None,
                    Some(away(
                        "page navigated away or closed, waiting for it to come back",
                    )),
                    Some(away("page disconnected, waiting for it to come back")),
                    Some(closed(Lifecycle::Closed, 1)),
                ],
            ),
            (
                "a silent close: 12 s",
                Worker,
                vec![(0, Attach(1, Worker)), (1, Dropped), (12, Poll), (13, Poll)],
                vec![
                    None,
                    Some(away("worker disconnected, waiting for it to come back")),
                    None,
                    Some(closed(Lifecycle::Closed, 1)),
                ],
            ),
        ]
    }

    /// Rows of Node processes, and of connections that do not serve the log.
    fn node_rows() -> Vec<Row> {
        use RealmKind::*;
        use Step::*;
        let closed = |what, s| Said::Line {
            what,
            how: String::new(),
            at: Some(wall(s)),
        };
        vec![
            (
                "a Node process that said it exits: `exited` now, no `closed` after",
                Node,
                vec![
                    (0, Attach(1, Node)),
                    (1, Exiting(1)),
                    (2, Dropped),
                    (30, Poll),
                ],
                vec![
                    None,
                    Some(Said::Line {
                        what: Lifecycle::Exited,
                        how: "code 1".into(),
                        at: None,
                    }),
                    Some(away("process disconnected, waiting for it to come back")),
                    None,
                ],
            ),
            (
                "a Node process gone without a word: `exited` after the grace",
                Node,
                vec![(0, Attach(1, Node)), (1, Dropped), (13, Poll)],
                vec![
                    None,
                    Some(away("process disconnected, waiting for it to come back")),
                    Some(closed(Lifecycle::Exited, 1)),
                ],
            ),
            (
                "only the serving connection's silence or exit counts",
                Page,
                vec![
                    (0, Attach(2, Page)),
                    (1, Responsive(1, false)),
                    (2, Responsive(2, false)),
                    (3, Responsive(2, true)),
                    (4, Exiting(1)),
                ],
                vec![
                    None,
                    None,
                    Some(away(
                        "the page stopped answering (busy in a loop?); still waiting",
                    )),
                    Some(Said::Away(None)),
                    None,
                ],
            ),
        ]
    }

    #[test]
    fn presence_as_the_table_says() {
        use Step::*;
        let t0 = Millis(1_000);
        for (what, kind, steps, want) in page_rows().into_iter().chain(node_rows()) {
            let mut p = Presence::new(kind);
            let mut got = Vec::new();
            for (s, step) in steps {
                let now = t0 + Duration::from_secs(s);
                got.push(match step {
                    Attach(conn, k) => {
                        p.handle_attach(conn, k);
                        None
                    }
                    Dropped => Some(p.handle_dropped(Now {
                        mono: now,
                        clock: wall(s as u32),
                    })),
                    Left => Some(p.handle_left(Now {
                        mono: now,
                        clock: wall(s as u32),
                    })),
                    Exiting(conn) => p.handle_exiting(conn, "code 1").map(|(_, said)| said),
                    Responsive(conn, r) => p.handle_responsive(conn, r),
                    Poll => p.poll_closed(now),
                });
            }
            assert_eq!(got, want, "{what}");
        }
    }

    #[test]
    fn a_log_without_a_realm_at_start_says_so() {
        let p = Presence::new(RealmKind::Page);
        assert_eq!(
            p.handle_start(),
            Some(away("page disconnected, waiting for it to come back"))
        );
        let mut p = Presence::new(RealmKind::Page);
        p.handle_attach(1, RealmKind::Page);
        assert_eq!(p.handle_start(), None);
        assert_eq!(p.back(), Said::Away(None));
    }
}
