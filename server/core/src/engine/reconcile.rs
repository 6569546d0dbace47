//! Before every input: the log's text is made to agree with what the
//! engine knows (docs/log-format.md, "Stale saves").
//!
//! An agent's save may come from a read older than the hub's last write.
//! Then a block the engine took may have lost its reply, or show an
//! executing region that has since become a reply; a footer may stand
//! above blocks that already ran. [`LogEngine::reconcile`] surveys the
//! active part of the text (fence-aware), recognises the engine's blocks
//! (the [`super::ledger`]) and puts back what belongs under each: the
//! finished reply, or the live region of the running job. Executing
//! regions no job owns (a stopped hub's) are closed. Stray footers go.
//! Then it tells the rest of the engine where the footer and the active
//! tail are, so nothing later scans backwards through fences.

use std::ops::Range;

use daebug_protocol::JobError;

use super::ledger::{Place, Taken, TakenState, REMEMBERED_BLOCKS};
use super::markdown::{parse_header, HeaderKind};
use super::survey::{is_placeholder, survey, HubBlock, Survey, SurveyedBlock};
use super::tail::ExecBlock;
use super::text::{lines_back, lines_from, Eol};
use super::{LogEngine, Now, Outcome, Output};

/// How many times the text is fixed and surveyed again in one input. The
/// second survey of a fixed text finds nothing to fix; a third is a guard.
const PASSES: usize = 3;

/// One replacement in the text being reconciled.
type Fix = (Range<usize>, String);

impl LogEngine {
    /// Makes `text` agree with the engine (see the module docs). Returns
    /// the fixed text when anything had to change.
    pub(super) fn reconcile(&mut self, text: &str, now: Now, out: &mut Output) -> Option<String> {
        let start = self.horizon(text, 0).unwrap_or(0);
        let mut fixed: Option<String> = None;
        for pass in 0..PASSES {
            let cur = fixed.as_deref().unwrap_or(text);
            let s = survey(cur, start, &self.stem);
            if !self.read_once {
                self.read_once = true;
                self.find_history(cur, &s, start);
            }
            let matched = self.ledger.matches(cur, &s, start);
            let fixes = self.fixes(cur, &s, &matched, start, now, out);
            if fixes.is_empty() || pass + 1 == PASSES {
                self.take_places(&s, &matched, start);
                return fixed;
            }
            fixed = Some(splice(cur, fixes));
        }
        fixed
    }

    /// What must change in `text` so it agrees with the engine: the
    /// engine's blocks' replies and region, executing regions no block of
    /// the engine's owns, stray footers; once those agree, hub blocks a
    /// save removed.
    fn fixes(
        &mut self,
        text: &str,
        s: &Survey,
        matched: &[Option<usize>],
        start: usize,
        now: Now,
        out: &mut Output,
    ) -> Vec<Fix> {
        let eol = Eol::detect(text);
        let mut fixes = self.taken_fixes(text, s, matched, eol, out);
        fixes.extend(self.unowned_fixes(text, s, matched, eol, now, out));
        fixes.extend(self.footer_fixes(text, s, matched, out));
        if fixes.is_empty() {
            // Once the blocks agree: hub blocks written after them.
            fixes = self.lost_writes(text, s, matched, start, eol, out);
        }
        without_overlaps(fixes)
    }

    /// Blocks the engine took: their replies and the live region back.
    fn taken_fixes(
        &mut self,
        text: &str,
        s: &Survey,
        matched: &[Option<usize>],
        eol: Eol,
        out: &mut Output,
    ) -> Vec<Fix> {
        let mut fixes: Vec<Fix> = Vec::new();
        let running = self.job.as_ref().map(|j| j.id);
        for (b, k) in s.blocks.iter().zip(matched) {
            let Some(k) = *k else { continue };
            let taken = self.ledger.get(k);
            match (&taken.state, &b.answer) {
                (TakenState::Running, None) if taken.job == running => {
                    let Some(job) = self.job.as_mut() else {
                        continue;
                    };
                    let region = eol.convert(&job.region_text());
                    let (fix, sep) = under(text, &b.block, &region, eol);
                    job.place.sep = sep;
                    fixes.push(fix);
                    out.effects.push(notice(
                        &self.stem,
                        "put back the executing region of a running job a save had removed",
                    ));
                }
                (TakenState::Replied(reply), None) => {
                    fixes.push(under(text, &b.block, &eol.convert(reply), eol).0);
                    out.effects.push(notice(
                        &self.stem,
                        "put back a reply a save had removed (the block is not run again)",
                    ));
                }
                (TakenState::Replied(reply), Some(a)) if a.executing => {
                    fixes.push((a.start..a.end, eol.convert(reply)));
                    out.effects.push(notice(
                        &self.stem,
                        "replaced an executing region a save had brought back with its reply",
                    ));
                }
                _ => {}
            }
        }
        fixes
    }

    /// Executing regions under no block of the engine's: the running
    /// job's own (its block was edited) stays once; a stale copy goes, or
    /// becomes the reply it turned into; a stopped hub's is closed.
    fn unowned_fixes(
        &mut self,
        text: &str,
        s: &Survey,
        matched: &[Option<usize>],
        eol: Eol,
        now: Now,
        out: &mut Output,
    ) -> Vec<Fix> {
        let mut fixes: Vec<Fix> = Vec::new();
        let running = self.job.as_ref().map(|j| j.id);
        let job_matched = matched
            .iter()
            .flatten()
            .any(|&k| running.is_some() && self.ledger.get(k).job == running);
        let unowned = s
            .blocks
            .iter()
            .zip(matched)
            .filter(|(_, k)| k.is_none())
            .filter_map(|(b, _)| Some((Some(b), b.answer.as_ref()?)))
            .chain(s.loose.iter().map(|a| (None, a)))
            .filter(|(_, a)| a.executing);
        let mut live_seen = false;
        for (block, a) in unowned {
            let header = lines_from(text, a.start).next().map_or("", |l| l.text);
            if let Some(j) = self.job.as_ref().filter(|j| j.place.exec_header == header) {
                if !job_matched && !live_seen {
                    // The running block was edited: its region stays.
                    live_seen = true;
                } else {
                    fixes.push((a.start..a.end, String::new()));
                    out.effects.push(notice(
                        &self.stem,
                        &format!("removed a stale copy of job {}'s executing region", j.id),
                    ));
                }
                continue;
            }
            match self.stale_region(text, block, header, matched, eol) {
                Some((fix, what)) => {
                    fixes.push((a.start..a.end, fix));
                    out.effects.push(notice(&self.stem, what));
                }
                None => fixes.push(self.close_orphan(text, s, a, eol, now, out)),
            }
        }
        fixes
    }

    /// An executing region with `header` that a block of the engine's
    /// owned: what replaces it, and the note that says so. A header names
    /// a second, not a job: under a block, the region is a taken block's
    /// only when that block's code is the one above it (two jobs in one
    /// second are told apart).
    fn stale_region(
        &self,
        text: &str,
        block: Option<&SurveyedBlock>,
        header: &str,
        matched: &[Option<usize>],
        eol: Eol,
    ) -> Option<(String, &'static str)> {
        let code = block.map(|b| text[b.block.body.clone()].replace("\r\n", "\n"));
        let owner =
            self.ledger.iter().enumerate().find(|(_, t)| {
                *t.header == *header && code.as_ref().is_none_or(|c| **c == *t.code)
            });
        if let Some((k, t)) = owner {
            let elsewhere = matched.contains(&Some(k));
            let fix = match &t.state {
                TakenState::Replied(reply) if !elsewhere => eol.convert(reply),
                _ => String::new(),
            };
            return Some((fix, "replaced a stale executing region"));
        }
        // Another block's region of the same second, brought back under
        // this one by a save: not this block's answer.
        self.ledger.iter().any(|t| *t.header == *header).then_some((
            String::new(),
            "removed an executing region a save had put under another block",
        ))
    }

    /// Footers above what the hub wrote or ran are stale copies. Below
    /// it, there is one footer while idle (the hub's, where it left it,
    /// else the first) and none while a job runs: others are copies an
    /// agent wrote.
    fn footer_fixes(
        &self,
        text: &str,
        s: &Survey,
        matched: &[Option<usize>],
        out: &mut Output,
    ) -> Vec<Fix> {
        let mut fixes: Vec<Fix> = Vec::new();
        let end = consumed_end(s, matched);
        let keep = match self.job {
            Some(_) => None,
            None => s
                .footers
                .iter()
                .filter(|f| f.start >= end)
                .find(|f| Some(f.start) == self.footer_hint)
                .or_else(|| s.footers.iter().find(|f| f.start >= end))
                .map(|f| f.start),
        };
        // A block inserted between the hub's part and the footer (an edit
        // tool replacing the footer line with block + footer) runs as if
        // appended below it: the footer goes, to be put back after it.
        let inserted_above = |k: usize| {
            s.blocks
                .iter()
                .zip(matched)
                .any(|(b, m)| m.is_none() && b.block.start >= end && b.block.start < k)
        };
        let moved = keep.filter(|&k| inserted_above(k));
        let keep = keep.filter(|_| moved.is_none());
        for f in s.footers.iter().filter(|f| Some(f.start) != keep) {
            let blank = |l: Option<super::text::Line<'_>>| l.is_none_or(|l| l.is_blank());
            let above = lines_back(text, f.start).next();
            let next = lines_from(text, f.next).next();
            // One blank line stays at the seam, none at the text's end.
            let range = match (blank(above), next) {
                (true, None) => above.map_or(f.start, |l| l.start)..f.next,
                (true, Some(n)) if n.is_blank() => f.start..n.next,
                _ => f.start..f.next,
            };
            fixes.push((range, String::new()));
            out.effects.push(notice(
                &self.stem,
                if f.start < end {
                    "removed a footer a save had left above answered blocks"
                } else if moved == Some(f.start) {
                    "a block was inserted above the footer: it runs as if appended below"
                } else {
                    "removed a second footer line (the hub keeps one)"
                },
            ));
        }
        fixes
    }

    /// What the hub wrote that a save removed: chunks it wrote for other
    /// doors (with their answers) and hub blocks written after the
    /// engine's blocks (late results, background events, notes). One pass
    /// over the ledger, in log order (docs/log-format.md, "Door chunks"):
    ///
    /// - a door's block is lost when this survey covers its place and no
    ///   block of the text is it (matching is by code and what stands
    ///   under it, in order: [`super::ledger::match_blocks`]); a block
    ///   above the survey, or above the text the engine was given, stands
    ///   and is never put back;
    /// - a hub block written after a taken block is checked when that
    ///   block is in this survey (found, or put back now); it is lost when
    ///   fewer copies of its text stand among the hub blocks of the survey
    ///   than the engine wrote there;
    /// - what is lost goes back right after the nearest earlier item that
    ///   stands (after its answer and the hub blocks below it), else at
    ///   the start of the surveyed tail.
    ///
    /// So an item is put back only where the text was read and it was
    /// not found, never twice for one loss: the next survey finds it.
    fn lost_writes(
        &self,
        text: &str,
        s: &Survey,
        matched: &[Option<usize>],
        start: usize,
        eol: Eol,
        out: &mut Output,
    ) -> Vec<Fix> {
        // Runs on every input: nothing is looked at unless the engine has
        // door chunks or hub blocks to keep.
        let doors = self.ledger.iter().any(|t| t.chunk.is_some());
        if !doors && !self.ledger.has_writes() {
            return Vec::new();
        }
        let mut standing = standing_copies(text, s);
        let mut lost_after = |seq: u64, into: &mut String| {
            for w in self.ledger.writes_after(seq) {
                match standing.get_mut(&*w.text) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ => {
                        into.push_str(&eol.convert(&w.text));
                        into.push_str(eol.as_str());
                    }
                }
            }
        };
        let found: std::collections::HashMap<usize, &SurveyedBlock> = s
            .blocks
            .iter()
            .zip(matched)
            .filter_map(|(b, k)| k.map(|k| (k, b)))
            .collect();
        // A door's block whose place this survey covers, not found in it.
        let covered = self.ledger.covered(start);
        let lost = |k: usize, t: &Taken| t.chunk.is_some() && covered[k];
        let mut fixes: Vec<Fix> = Vec::new();
        // Items waiting to go back, and where: `None` until an item that
        // stands is met (the start of the surveyed tail).
        let mut pending = String::new();
        let mut anchor: Option<usize> = None;
        let mut door_lost = false;
        let flush = |pending: &mut String, at: usize, fixes: &mut Vec<Fix>| {
            fixes.extend(put_back(text, eol, std::mem::take(pending), at));
        };
        // Hub blocks written before any block: only while no block stands
        // above the survey (they would be above it too).
        let any_above_start = self.ledger.iter().any(|t| match t.place {
            Place::At(h) => h < start,
            Place::Above => true,
            Place::Gone => false,
        });
        if !any_above_start {
            lost_after(0, &mut pending);
        }
        for (k, t) in self.ledger.iter().enumerate() {
            if let Some(b) = found.get(&k) {
                let at = anchor.unwrap_or_else(|| self.tail_start(text, s, start, Some(b)));
                flush(&mut pending, at, &mut fixes);
                anchor = Some(after_hub_blocks(text, s, b));
                lost_after(t.seq, &mut pending);
            } else if lost(k, t) {
                door_lost = true;
                pending.push_str(&eol.convert(&self.with_answer(t)));
                pending.push_str(eol.as_str());
                lost_after(t.seq, &mut pending);
            }
        }
        let at = anchor.unwrap_or_else(|| self.tail_start(text, s, start, None));
        flush(&mut pending, at, &mut fixes);
        if !fixes.is_empty() {
            out.effects.push(notice(
                &self.stem,
                match door_lost {
                    true => {
                        "put back a block another door sent, and its answer, a save had removed"
                    }
                    false => {
                        "put back hub output (a late result, background events) a save had removed"
                    }
                },
            ));
        }
        fixes
    }

    /// Where lost items go when none before them stands: at the start of
    /// the chunk of `first` (the first block of the survey that stands),
    /// else above the footer, else above the first chunk after the head.
    fn tail_start(
        &self,
        text: &str,
        s: &Survey,
        start: usize,
        first: Option<&SurveyedBlock>,
    ) -> usize {
        if let Some(b) = first {
            // Its request header, when it has one after `start`.
            return s
                .requests
                .iter()
                .copied()
                .rfind(|&r| r >= start && r <= b.block.start)
                .unwrap_or(b.block.start);
        }
        s.footers.first().map(|f| f.start).unwrap_or_else(|| {
            let head = super::template::head_end(text, &self.stem).0.max(start);
            super::tail::chunks(text, head, &self.stem)
                .into_iter()
                .find(|c| c.draft || c.runnable())
                .map_or(text.len(), |c| {
                    c.header
                        .map_or(c.first_content.unwrap_or(c.start), |(_, at)| at)
                })
        })
    }

    /// A door's chunk as it goes back: with its block's reply or running
    /// region under it (as [`LogEngine::start_block`] wrote them: a blank
    /// line between).
    fn with_answer(&self, t: &Taken) -> String {
        let chunk = t.chunk.as_deref().unwrap_or_default().to_string();
        let answer = match (&t.state, t.job) {
            (TakenState::Replied(reply), _) => reply.to_string(),
            (TakenState::Running, job) => match &self.job {
                Some(j) if Some(j.id) == job => j.region_text(),
                _ => return chunk,
            },
            _ => return chunk,
        };
        format!("{chunk}\n{answer}")
    }

    /// An executing region a stopped hub left: its result was lost. Later
    /// blocks of its request are skipped, as after any failure.
    fn close_orphan(
        &mut self,
        text: &str,
        s: &Survey,
        a: &HubBlock,
        eol: Eol,
        now: Now,
        out: &mut Output,
    ) -> Fix {
        let header = lines_from(text, a.start).next().map_or("", |l| l.text);
        let (agent, clock) = match parse_header(header).map(|h| h.kind) {
            Some(HeaderKind::To { to, at, .. }) => (to.to_string(), at),
            _ => ("agent".to_string(), now.clock),
        };
        let chunk_end = s
            .requests
            .iter()
            .copied()
            .find(|&r| r >= a.end)
            .unwrap_or(text.len());
        let later: Vec<&ExecBlock> = s
            .blocks
            .iter()
            .filter(|b| b.answer.is_none() && b.block.start >= a.end && b.block.start < chunk_end)
            .map(|b| &b.block)
            .collect();
        for b in &later {
            self.ledger.insert(skipped(text, b));
        }
        let error = JobError {
            name: "Error".into(),
            message: "the hub stopped while this block was running, so its result was lost; append the block again to re-run it".into(),
            stack: None,
        };
        // The events the region showed stay, byte for byte, under the
        // error: they are the page's output, not the hub's.
        let last = lines_back(text, a.end).next();
        let events_end = match last {
            Some(l) if l.start >= a.header_next && is_placeholder(l.text) => l.start,
            _ => a.end,
        };
        let mut reply = self.reply(
            &agent,
            clock,
            "(**ERROR** result lost)",
            &Outcome::Error(error),
            &[],
            &[],
            super::render::Drops::default(),
            0,
            out,
        );
        reply = eol.convert(&reply);
        reply.push_str(&text[a.header_next..events_end]);
        if !later.is_empty() {
            reply.push_str(&eol.convert(&super::skip_note(later.len())));
            reply.push_str(eol.as_str());
        }
        if lines_from(text, a.end)
            .next()
            .is_some_and(|l| !l.is_blank())
        {
            reply.push_str(eol.as_str());
        }
        out.effects.push(notice(
            &self.stem,
            "closed an executing region left by a stopped hub",
        ));
        (a.start..a.end, reply)
    }

    /// On the first read: the blocks above the footer ran under a stopped
    /// hub. They go in the ledger as found, so that a save from an older
    /// read cannot make one look new or take a later block's place.
    /// `s` is the survey of `text` from `start`: whole, as a fresh engine
    /// has no horizon (else the text is surveyed whole here).
    fn find_history(&mut self, text: &str, s: &Survey, start: usize) {
        let whole;
        let s = match start {
            0 => s,
            _ => {
                whole = survey(text, 0, &self.stem);
                &whole
            }
        };
        let consumed = s.hub_end(0);
        let history_end = s
            .footers
            .iter()
            .find(|f| f.start >= consumed)
            .map_or(consumed, |f| f.start);
        let found: Vec<&SurveyedBlock> = s
            .blocks
            .iter()
            .filter(|b| b.block.start < history_end)
            .collect();
        let keep = found.len().saturating_sub(REMEMBERED_BLOCKS);
        for b in &found[keep..] {
            self.ledger.insert(Taken {
                state: TakenState::Found,
                ..skipped(text, &b.block)
            });
        }
    }

    /// After a survey that needed no fix: remember where the engine's
    /// blocks, the running region, the footer and the active tail are.
    fn take_places(&mut self, s: &Survey, matched: &[Option<usize>], start: usize) {
        for (b, k) in s.blocks.iter().zip(matched) {
            if let Some(k) = *k {
                self.ledger.get_mut(k).place = Place::At(b.block.start);
            }
        }
        if start == 0 {
            // A whole survey did not find these: they were removed.
            for (k, t) in self.ledger.iter_mut().enumerate() {
                if !matched.contains(&Some(k)) && t.place != Place::Above {
                    t.place = Place::Gone;
                }
            }
        }
        if let Some(j) = self.job.as_mut() {
            let own = s
                .blocks
                .iter()
                .zip(matched)
                .find(|(_, k)| k.is_some_and(|k| self.ledger.get(k).job == Some(j.id)))
                .and_then(|(b, _)| b.answer.as_ref());
            let header_at = |a: &&HubBlock| a.executing;
            let region = own.filter(header_at).map(|a| a.start).or_else(|| {
                // The running block was edited: its region is found by its
                // header among the regions no block owns.
                s.blocks
                    .iter()
                    .zip(matched)
                    .filter(|(_, k)| k.is_none())
                    .filter_map(|(b, _)| b.answer.as_ref())
                    .chain(s.loose.iter())
                    .filter(header_at)
                    .map(|a| a.start)
                    .next()
            });
            if let Some(at) = region {
                j.place.region_hint = Some(at);
            }
        }
        let end = consumed_end(s, matched).max(start);
        self.footer_hint = s.footers.iter().find(|f| f.start >= end).map(|f| f.start);
        self.tail_from = end;
    }
}

/// The end of the last block the hub answered, ran or skipped, or wrote
/// on its own: what an agent adds after it is new.
fn consumed_end(s: &Survey, matched: &[Option<usize>]) -> usize {
    let taken = s
        .blocks
        .iter()
        .zip(matched)
        .filter(|(_, k)| k.is_some())
        .map(|(b, _)| b.answer.as_ref().map_or(b.block.next, |a| a.end));
    taken.fold(s.hub_end(0), usize::max)
}

/// A skipped block, as the ledger remembers it.
pub(super) fn skipped(text: &str, b: &ExecBlock) -> Taken {
    Taken {
        job: None,
        code: text[b.body.clone()].replace("\r\n", "\n").into(),
        opener: lines_from(text, b.start)
            .next()
            .map_or("".into(), |l| l.text.into()),
        place: Place::At(b.start),
        header: "".into(),
        state: TakenState::Skipped,
        seq: 0,
        chunk: None,
        released: false,
    }
}

/// Inserting `region` (in the file's line endings) under `block`: a blank
/// line before it and, when the next line has content, one after it.
/// Also returns whether that blank line after was added.
fn under(text: &str, block: &ExecBlock, region: &str, eol: Eol) -> (Fix, bool) {
    let nl = eol.as_str();
    let mut s = String::new();
    if !block.terminated {
        s.push_str(nl);
    }
    s.push_str(nl);
    s.push_str(region);
    let sep = lines_from(text, block.next)
        .next()
        .is_some_and(|l| !l.is_blank());
    if sep {
        s.push_str(nl);
    }
    ((block.next..block.next, s), sep)
}

/// Applies sorted, non-overlapping fixes.
fn splice(text: &str, fixes: Vec<Fix>) -> String {
    let mut out =
        String::with_capacity(text.len() + fixes.iter().map(|(_, s)| s.len()).sum::<usize>());
    let mut at = 0;
    for (r, s) in fixes {
        out.push_str(&text[at..r.start]);
        out.push_str(&s);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

fn notice(stem: &str, what: &str) -> super::Effect {
    super::Effect::Notice(format!("{stem}: {what}"))
}

/// The end of `b`'s answer and of the hub blocks right below it: where
/// what the hub wrote after `b` goes.
fn after_hub_blocks(text: &str, s: &Survey, b: &SurveyedBlock) -> usize {
    let mut at = b.answer.as_ref().map_or(b.block.next, |a| a.end);
    loop {
        let next = lines_from(text, at).find(|l| !l.is_blank());
        match next.and_then(|l| s.loose.iter().find(|h| h.start == l.start)) {
            Some(h) => at = h.end,
            None => return at,
        }
    }
}

/// How many copies of each hub block's text stand in the survey.
fn standing_copies<'a>(
    text: &'a str,
    s: &Survey,
) -> std::collections::HashMap<std::borrow::Cow<'a, str>, usize> {
    let mut standing = std::collections::HashMap::new();
    for h in s
        .blocks
        .iter()
        .filter_map(|b| b.answer.as_ref())
        .chain(s.loose.iter())
    {
        let t = match &text[h.start..h.end] {
            t if t.contains('\r') => std::borrow::Cow::Owned(t.replace("\r\n", "\n")),
            t => std::borrow::Cow::Borrowed(t),
        };
        *standing.entry(t).or_default() += 1;
    }
    standing
}

/// Lost items (`pending`, each followed by a line end) put back at `at`,
/// with one blank line at each seam.
fn put_back(text: &str, eol: Eol, mut pending: String, at: usize) -> Option<Fix> {
    if pending.is_empty() {
        return None;
    }
    let blank_above = lines_back(text, at).next().is_none_or(|l| l.is_blank());
    if !blank_above {
        pending.insert_str(0, eol.as_str());
    }
    let blank_below = lines_from(text, at).next().is_none_or(|l| l.is_blank());
    if blank_below {
        pending.truncate(pending.len() - eol.as_str().len());
    }
    Some((at..at, pending))
}

/// The fixes in text order. Two fixes never overlap (each covers its own
/// block or line); if a malformed text made them, the first of each
/// overlap is kept.
fn without_overlaps(mut fixes: Vec<Fix>) -> Vec<Fix> {
    fixes.sort_by_key(|(r, _)| r.start);
    let mut kept: Vec<Fix> = Vec::with_capacity(fixes.len());
    for f in fixes {
        if kept.last().is_none_or(|(r, _)| r.end <= f.0.start) {
            kept.push(f);
        }
    }
    kept
}
