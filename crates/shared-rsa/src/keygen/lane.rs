//! One lane: a thread that runs batches of candidates through the
//! protocol in lock step with the same lane at every other party.
//!
//! A batch of `K` candidates takes these round trips (each message carries
//! all `K`):
//! 1. sieving (`n − 1` rounds): BGW over `Z_M` turns each party's random
//!    unit `a_i` into additive shares of `Π a_i mod M`;
//! 2. `N` (2 rounds): Shamir shares of `p_i`, `q_i` and of zero over `F_P`,
//!    then the product shares, interpolated at 0; additive pieces of
//!    `φ_i mod e` ride along, so `φ mod e` is known with `N`;
//! 3. trial division (1 round): verdicts on each party's part of the primes;
//! 4. the first biprimality round (1 round) on the survivors.
//!
//! A candidate that passes goes on to the `gcd` test (2 rounds), the other
//! 127 biprimality rounds (1 round), and a commit decided by party 1, which
//! stops the other lanes.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;

use numcrypt_limbs::ct_audit::{declassified, declassify, declassify_monty};
use numcrypt_limbs::{BoxedUint, MontyParams, PowOperand, Unsigned};
use rand_chacha::ChaCha20Rng;
use zeroize::{Zeroize, Zeroizing};

use super::{BIPRIMALITY_ROUNDS, Found, Setup, Shared};
use crate::Error;
use crate::arith::{Elem, Interpolator, Ring, hash_to_residue, random_small, rem_small};
use crate::transport::Transport;
use crate::wire::{Reader, Writer};

/// A candidate's secret part at this party.
struct Candidate {
    cid: u64,
    /// The party holding the `3 mod 4` shares (and the public offset).
    special: usize,
    p: Zeroizing<BoxedUint>,
    q: Zeroizing<BoxedUint>,
}

/// What became of a candidate that passed a first biprimality round.
enum Outcome {
    /// It failed the `gcd` test or a later round.
    Rejected,
    /// It is the key's modulus.
    Committed(Box<Found>),
    /// It passed, but another lane's biprime was committed first.
    Stop,
}

/// Per-party outgoing messages of one round (`None`: nothing to send).
type Outgoing = Vec<Option<Vec<u8>>>;
/// Per-party incoming messages (our own slot empty).
type Incoming = Vec<Zeroizing<Vec<u8>>>;

pub(crate) struct Lane<'a, T: ?Sized> {
    shared: &'a Shared<'a, T>,
    setup: &'a Setup,
    id: usize,
    channel: u16,
    rng: ChaCha20Rng,
    batch_no: u64,
}

/// `(a + b) mod e` for `a, b < e`, constant time.
fn add_mod_small(a: u32, b: u32, e: u32) -> u32 {
    let s = u64::from(a) + u64::from(b);
    let (d, borrow) = s.overflowing_sub(u64::from(e));
    let keep = 0u64.wrapping_sub(u64::from(borrow));
    ((s & keep) | (d & !keep)) as u32
}

/// `(−a) mod e` for `a < e`, constant time.
fn neg_mod_small(a: u32, e: u32) -> u32 {
    add_mod_small(e - a, 0, e)
}

impl<'a, T: Transport + ?Sized> Lane<'a, T> {
    pub(crate) fn new(shared: &'a Shared<'a, T>, id: usize, rng: ChaCha20Rng) -> Self {
        Self {
            shared,
            setup: shared.setup,
            id,
            channel: id as u16 + 1,
            rng,
            batch_no: 0,
        }
    }

    fn leader(&self) -> bool {
        self.setup.me == 0
    }

    /// One round trip: sends `out`, then receives from every party that
    /// `expect` names. In a batch's first round the leader prefixes a flag
    /// (1: go on, 0: stop) that everyone obeys: `Ok(None)` means stop.
    fn exchange(
        &self,
        out: Outgoing,
        expect: impl Fn(usize) -> bool,
        first: bool,
    ) -> Result<Option<Incoming>, Error> {
        let (n, me) = (self.setup.n, self.setup.me);
        let t = self.shared.transport;
        if self.id == 0 {
            self.shared.rounds.fetch_add(1, Ordering::Relaxed);
        }
        for (j, msg) in out.into_iter().enumerate() {
            if j == me {
                continue;
            }
            match (first, msg) {
                (true, Some(body)) => {
                    let mut m = Vec::with_capacity(body.len() + 1);
                    m.push(1);
                    m.extend_from_slice(&body);
                    let mut body = body;
                    body.zeroize();
                    t.send(j, self.channel, m)?;
                }
                (true, None) => t.send(j, self.channel, vec![1])?,
                (false, Some(body)) => t.send(j, self.channel, body)?,
                (false, None) => {}
            }
        }
        let mut got: Incoming = (0..n).map(|_| Zeroizing::new(Vec::new())).collect();
        // The leader's message first: it may say stop.
        for j in (0..n).filter(|&j| j != me && expect(j)) {
            let mut m = Zeroizing::new(t.recv(j, self.channel, self.setup.timeout)?);
            if first {
                match m.first() {
                    Some(1) => {
                        m.remove(0);
                    }
                    Some(0) if j == 0 => return Ok(None),
                    _ => {
                        return Err(Error::Malformed {
                            party: j + 1,
                            what: "batch flag",
                        });
                    }
                }
            }
            got[j] = m;
        }
        Ok(Some(got))
    }

    /// The leader's stop: a lone flag 0 to everyone on this lane.
    fn send_stop(&self) -> Result<(), Error> {
        for j in 1..self.setup.n {
            self.shared.transport.send(j, self.channel, vec![0])?;
        }
        Ok(())
    }

    pub(crate) fn run(mut self) -> Result<Option<Found>, Error> {
        let setup = self.setup;
        loop {
            if self.leader() {
                let done = self.shared.stop.load(Ordering::SeqCst)
                    || self.shared.candidates.load(Ordering::Relaxed) >= setup.max_candidates;
                if done {
                    self.send_stop()?;
                    return Ok(None);
                }
            }
            let k = setup.batch as u64;
            let base = (self.batch_no * setup.lanes as u64 + self.id as u64) * k;
            self.batch_no += 1;
            let specials: Vec<(u64, usize)> = (base..base + k)
                .map(|cid| {
                    let special = if setup.improvements.load_balancing {
                        (cid % setup.n as u64) as usize
                    } else {
                        0
                    };
                    (cid, special)
                })
                .collect();
            let Some(cands) = self.make_candidates(&specials)? else {
                return Ok(None);
            };
            let Some(moduli) = self.compute_moduli(&cands)? else {
                return Ok(None);
            };
            self.shared
                .candidates
                .fetch_add(cands.len() as u64, Ordering::Relaxed);
            let survivors = self.trial_division(&moduli)?;
            self.shared
                .survivors
                .fetch_add(survivors.len() as u64, Ordering::Relaxed);
            if survivors.is_empty() {
                continue;
            }
            let rings: Vec<Ring> = survivors
                .iter()
                .map(|&i| Ring::new(moduli[i].0.clone(), setup.n))
                .collect::<Result<_, _>>()?;
            let passed = self.biprimality_round(&cands, &moduli, &survivors, &rings)?;
            self.shared
                .tests
                .fetch_add(survivors.len() as u64, Ordering::Relaxed);
            for (s, &i) in survivors.iter().enumerate() {
                if !passed[s] {
                    continue;
                }
                match self.finish(&cands[i], &moduli[i].0, moduli[i].1, &rings[s])? {
                    Outcome::Rejected => {}
                    Outcome::Committed(found) => return Ok(Some(*found)),
                    Outcome::Stop => return Ok(None),
                }
            }
        }
    }

    /// Each party's prime shares for the batch, after distributed sieving
    /// when it is on. `None`: the leader said stop.
    fn make_candidates(
        &mut self,
        specials: &[(u64, usize)],
    ) -> Result<Option<Vec<Candidate>>, Error> {
        let setup = self.setup;
        let count = specials.len() * 2;
        let units: Zeroizing<Vec<BoxedUint>> = match &setup.sieve {
            Some(_) => match self.sieve_units(count)? {
                Some(u) => u,
                None => return Ok(None),
            },
            None => Zeroizing::new(vec![BoxedUint::zero(1); count]),
        };
        let limbs = setup.range.limbs;
        let m = setup.m.resize(limbs)?;
        let m_mod_4 = m.as_words()[0] & 3;
        let mut cands = Vec::with_capacity(specials.len());
        for (c, &(cid, special)) in specials.iter().enumerate() {
            let mut pq: [Zeroizing<BoxedUint>; 2] = [
                Zeroizing::new(BoxedUint::zero(1)),
                Zeroizing::new(BoxedUint::zero(1)),
            ];
            for (v, slot) in pq.iter_mut().enumerate() {
                let u = units[2 * c + v].resize(limbs)?;
                let u = Zeroizing::new(u);
                let target = if special == setup.me { 3 } else { 0 };
                // p_i = u + M (4ρ + c) with c making p_i ≡ target (mod 4):
                // M^-1 ≡ M (mod 4) for odd M.
                let c4 = ((target + 4 - (u.as_words()[0] & 3)) * m_mod_4) & 3;
                let rho = Zeroizing::new(
                    BoxedUint::random_below(&mut self.rng, &setup.range.rho_bound)?
                        .resize(limbs)?,
                );
                let r = Zeroizing::new(
                    rho.shl_vartime(2)
                        .wrapping_add(&BoxedUint::from_u64(c4, limbs)),
                );
                let mut p = u.wrapping_add(&m.wrapping_mul(&r));
                if special == setup.me {
                    p = p.wrapping_add(&setup.range.offset.resize(limbs)?);
                }
                *slot = Zeroizing::new(p);
            }
            let [p, q] = pq;
            cands.push(Candidate { cid, special, p, q });
        }
        Ok(Some(cands))
    }

    /// Distributed sieving: additive shares (`< M`) of `count` products
    /// `Π_i a_i mod M` of the parties' random units, by BGW over `Z_M`.
    fn sieve_units(&mut self, count: usize) -> Result<Option<Zeroizing<Vec<BoxedUint>>>, Error> {
        let setup = self.setup;
        let (Some(sieve), Some(interp)) = (&setup.sieve, &setup.sieve_interp) else {
            return Err(Error::InvalidConfig("sieving without a sieve".into()));
        };
        let ring = sieve.ring();
        let (n, t, me) = (setup.n, setup.t, setup.me);
        // Round 1: Shamir-share our units.
        let mut mine: Zeroizing<Vec<Elem>> = Zeroizing::new(Vec::with_capacity(count));
        let mut out: Vec<Writer> = (0..n).map(|_| Writer::default()).collect();
        for _ in 0..count {
            let a = Zeroizing::new(sieve.random_unit(&mut self.rng));
            let shares = ring.share(&a, t, &mut self.rng);
            for (j, w) in out.iter_mut().enumerate() {
                if j != me {
                    w.elem(ring, &shares[j]);
                }
            }
            mine.push(shares[me].clone());
        }
        let Some(got) = self.exchange(to_outgoing(out, me), |_| true, true)? else {
            return Ok(None);
        };
        // shares[i][x]: our share of party i's x-th unit.
        let mut shares: Vec<Zeroizing<Vec<Elem>>> = Vec::with_capacity(n);
        for (i, msg) in got.iter().enumerate() {
            if i == me {
                shares.push(std::mem::take(&mut mine));
                continue;
            }
            let mut r = Reader::new(msg, i);
            let v = (0..count)
                .map(|_| r.elem(ring, "sieve share"))
                .collect::<Result<Vec<_>, _>>()?;
            r.end()?;
            shares.push(Zeroizing::new(v));
        }
        let in_s = |j: usize| j <= 2 * t;
        let mut cur = std::mem::take(&mut shares[0]);
        for (k, next) in shares.iter().enumerate().skip(1) {
            let prod: Zeroizing<Vec<Elem>> = Zeroizing::new(
                cur.iter()
                    .zip(next.iter())
                    .map(|(a, b)| ring.mul(a, b))
                    .collect(),
            );
            if k == n - 1 {
                // The last product, of degree 2t: λ_me times our share is
                // our additive share.
                let units = match interp.coefficient(me) {
                    Some(lambda) => prod
                        .iter()
                        .map(|x| ring.value(&ring.mul(lambda, x)))
                        .collect(),
                    None => vec![ring.modulus().zero_like(); count],
                };
                return Ok(Some(Zeroizing::new(units)));
            }
            // Degree reduction: the first 2t + 1 parties reshare their
            // degree-2t shares with degree t; everyone recombines.
            let mut out: Vec<Writer> = (0..n).map(|_| Writer::default()).collect();
            let mut own: Zeroizing<Vec<Elem>> = Zeroizing::new(Vec::new());
            if in_s(me) {
                for x in prod.iter() {
                    let s = ring.share(x, t, &mut self.rng);
                    for (j, w) in out.iter_mut().enumerate() {
                        if j != me {
                            w.elem(ring, &s[j]);
                        }
                    }
                    own.push(s[me].clone());
                }
            }
            let outgoing = if in_s(me) {
                to_outgoing(out, me)
            } else {
                vec![None; n]
            };
            let got = self
                .exchange(outgoing, in_s, false)?
                .ok_or(Error::Aborted)?;
            let mut acc: Zeroizing<Vec<Elem>> = Zeroizing::new(vec![ring.zero(); count]);
            for j in (0..n).filter(|&j| in_s(j)) {
                let lambda = interp
                    .coefficient(j)
                    .ok_or(Error::InvalidConfig("interpolation set".into()))?;
                if j == me {
                    for (a, s) in acc.iter_mut().zip(own.iter()) {
                        *a = ring.add(a, &ring.mul(lambda, s));
                    }
                } else {
                    let mut r = Reader::new(&got[j], j);
                    for a in acc.iter_mut() {
                        let s = Zeroizing::new(r.elem(ring, "sieve reshare")?);
                        *a = ring.add(a, &ring.mul(lambda, &s));
                    }
                    r.end()?;
                }
            }
            cur = acc;
        }
        Err(Error::InvalidConfig("fewer than three parties".into()))
    }

    /// BGW over `F_P`: the public moduli `N` of the batch and `φ(N) mod e`.
    /// `None`: the leader said stop (when this is the batch's first round).
    fn compute_moduli(
        &mut self,
        cands: &[Candidate],
    ) -> Result<Option<Vec<(BoxedUint, u32)>>, Error> {
        let setup = self.setup;
        let (n, t, me, e) = (setup.n, setup.t, setup.me, setup.e);
        let field = &setup.field;
        let first = setup.sieve.is_none();
        let mut out: Vec<Writer> = (0..n).map(|_| Writer::default()).collect();
        // Our own shares: [p_i], [q_i], [z_i] and φ piece, per candidate.
        let mut own: Vec<(Elem, Elem, Elem, u32)> = Vec::with_capacity(cands.len());
        for c in cands {
            let pe = Zeroizing::new(field.elem(&c.p));
            let qe = Zeroizing::new(field.elem(&c.q));
            let sp = field.share(&pe, t, &mut self.rng);
            let sq = field.share(&qe, t, &mut self.rng);
            let sz = field.share(&field.zero(), 2 * t, &mut self.rng);
            // φ_i mod e: 1 − p_j − q_j for the special party, −p_i − q_i else.
            let sum = add_mod_small(rem_small(&c.p, e), rem_small(&c.q, e), e);
            let mut psi = neg_mod_small(sum, e);
            if c.special == me {
                psi = add_mod_small(psi, 1 % e, e);
            }
            let mut rest = psi;
            for (j, w) in out.iter_mut().enumerate() {
                if j == me {
                    continue;
                }
                let piece = random_small(&mut self.rng, u64::from(e)) as u32;
                rest = add_mod_small(rest, neg_mod_small(piece, e), e);
                w.elem(field, &sp[j]);
                w.elem(field, &sq[j]);
                w.elem(field, &sz[j]);
                w.u32(piece);
            }
            own.push((sp[me].clone(), sq[me].clone(), sz[me].clone(), rest));
        }
        let Some(got) = self.exchange(to_outgoing(out, me), |_| true, first)? else {
            wipe_own(&mut own);
            return Ok(None);
        };
        let mut readers: Vec<Option<Reader<'_>>> = got
            .iter()
            .enumerate()
            .map(|(j, m)| (j != me).then(|| Reader::new(m, j)))
            .collect();
        let mut reveal = Writer::default();
        let mut mine_n = Vec::with_capacity(cands.len());
        for (ps, qs, zs, piece) in &own {
            let (mut p, mut q, mut z, mut sigma) = (ps.clone(), qs.clone(), zs.clone(), *piece);
            for r in readers.iter_mut().flatten() {
                let rp = Zeroizing::new(r.elem(field, "share of p")?);
                let rq = Zeroizing::new(r.elem(field, "share of q")?);
                let rz = Zeroizing::new(r.elem(field, "share of zero")?);
                let s = r.u32("phi piece")?;
                // A peer's error is reported, so the verdict is public.
                if declassified(s >= e) {
                    return Err(r.malformed("phi piece out of range"));
                }
                p = field.add(&p, &rp);
                q = field.add(&q, &rq);
                z = field.add(&z, &rz);
                sigma = add_mod_small(sigma, s, e);
            }
            let mut share_n = field.add(&field.mul(&p, &q), &z);
            p.zeroize();
            q.zeroize();
            // Broadcast: public from here on, as everything broadcast is.
            declassify_monty(&mut share_n);
            declassify(&mut sigma);
            reveal.elem(field, &share_n);
            reveal.u32(sigma);
            mine_n.push((share_n, sigma));
        }
        for r in readers.iter().flatten() {
            r.end()?;
        }
        wipe_own(&mut own);
        let msg = reveal.finish();
        let got = self
            .exchange(vec![Some(msg); n], |_| true, false)?
            .ok_or(Error::Aborted)?;
        let mut readers: Vec<Option<Reader<'_>>> = got
            .iter()
            .enumerate()
            .map(|(j, m)| (j != me).then(|| Reader::new(m, j)))
            .collect();
        let mut moduli = Vec::with_capacity(cands.len());
        for (share_n, sigma) in &mine_n {
            let mut shares = Vec::with_capacity(n);
            let mut phi = *sigma;
            for (j, r) in readers.iter_mut().enumerate() {
                match r {
                    None => shares.push(share_n.clone()),
                    Some(r) => {
                        shares.push(r.elem(field, "share of N")?);
                        let s = r.u32("phi sum")?;
                        if s >= e {
                            return Err(Error::Malformed {
                                party: j + 1,
                                what: "phi sum out of range",
                            });
                        }
                        phi = add_mod_small(phi, s, e);
                    }
                }
            }
            let value = field.value(&setup.field_interp.interpolate(field, &shares, "N")?);
            if value.bits_vartime() != setup.bits {
                return Err(Error::InconsistentShares { what: "N" });
            }
            let modulus = value.resize(setup.n_limbs())?;
            phi = add_mod_small(phi, rem_small(&modulus, e), e);
            moduli.push((modulus, phi));
        }
        for r in readers.iter().flatten() {
            r.end()?;
        }
        Ok(Some(moduli))
    }

    /// Trial division (split among the parties when parallel trial
    /// division is on) and the check that `φ` is prime to `e`: the indices
    /// of the surviving candidates.
    fn trial_division(&self, moduli: &[(BoxedUint, u32)]) -> Result<Vec<usize>, Error> {
        let setup = self.setup;
        let (n, me) = (setup.n, setup.me);
        let parallel = setup.improvements.parallel_trial_division;
        let mut rejected: Vec<bool> = moduli
            .iter()
            .map(|(m, phi)| {
                !phi_fits(*phi, setup.e)
                    || setup.td.has_factor_vartime(m, |g| !parallel || g % n == me)
            })
            .collect();
        if parallel {
            let mut bitmap = vec![0u8; moduli.len().div_ceil(8)];
            for (i, &r) in rejected.iter().enumerate() {
                bitmap[i / 8] |= u8::from(r) << (i % 8);
            }
            let got = self
                .exchange(vec![Some(bitmap); n], |_| true, false)?
                .ok_or(Error::Aborted)?;
            for (j, m) in got.iter().enumerate() {
                if j == me {
                    continue;
                }
                if m.len() != moduli.len().div_ceil(8) {
                    return Err(Error::Malformed {
                        party: j + 1,
                        what: "trial-division verdicts",
                    });
                }
                for (i, r) in rejected.iter_mut().enumerate() {
                    *r |= (m[i / 8] >> (i % 8)) & 1 == 1;
                }
            }
        }
        Ok((0..moduli.len()).filter(|&i| !rejected[i]).collect())
    }

    /// The public base of biprimality round `round` for candidate `cid`: a
    /// hash of `N` to an element with Jacobi symbol 1.
    fn base(&self, modulus: &BoxedUint, cid: u64, round: usize) -> Result<BoxedUint, Error> {
        let nb = modulus.to_be_bytes();
        let mut counter = 0u32;
        loop {
            let g = hash_to_residue(
                modulus,
                b"numcrypt shared-rsa biprimality base",
                &[
                    &nb,
                    &cid.to_be_bytes(),
                    &(round as u64).to_be_bytes(),
                    &counter.to_be_bytes(),
                ],
            );
            if g.bits_vartime() > 1 && g.jacobi_vartime(modulus)? == 1 {
                return Ok(g);
            }
            counter += 1;
        }
    }

    /// Our values in biprimality rounds, one for each `(candidate, N,
    /// ring modulo N, round)`: `g^((N − p_j − q_j + 1)/4)` for the
    /// special party, `g^((p_i + q_i)/4)` for the others, constant time.
    /// The exponentiations are independent: they run in batches of the
    /// limbs crate's batch exponentiation (eight a pass with AVX-512 IFMA),
    /// one batch for each exponent size (which party is special is public).
    fn biprimality_values(
        &self,
        tests: &[(&Candidate, &BoxedUint, &Ring, usize)],
    ) -> Result<Vec<Elem>, Error> {
        let setup = self.setup;
        let mut bases = Vec::with_capacity(tests.len());
        let mut exponents = Vec::with_capacity(tests.len());
        for &(c, modulus, ring, round) in tests {
            bases.push(ring.elem(&self.base(modulus, c.cid, round)?));
            let width = modulus.nlimbs();
            let p = Zeroizing::new(c.p.resize(width)?);
            let q = Zeroizing::new(c.q.resize(width)?);
            let sum = Zeroizing::new(p.wrapping_add(&q));
            exponents.push(if c.special == setup.me {
                let one = BoxedUint::from_u64(1, width);
                let e = modulus.wrapping_add(&one).wrapping_sub(&sum);
                (Zeroizing::new(e.shr_vartime(2)), setup.bits)
            } else {
                (Zeroizing::new(sum.shr_vartime(2)), setup.h + 1)
            });
        }
        let mut values: Vec<Elem> = tests.iter().map(|t| t.2.params().zero()).collect();
        let mut sizes: Vec<u32> = exponents.iter().map(|e| e.1).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for bits in sizes {
            let members: Vec<usize> = (0..tests.len())
                .filter(|&i| exponents[i].1 == bits)
                .collect();
            let operands: Vec<PowOperand<'_, BoxedUint>> = members
                .iter()
                .map(|&i| (tests[i].2.params(), &bases[i], (*exponents[i].0).as_ref()))
                .collect();
            let mut out: Vec<Elem> = members
                .iter()
                .map(|&i| tests[i].2.params().zero())
                .collect();
            MontyParams::pow_bounded_batch(&operands, bits, &mut out)?;
            for (&i, value) in members.iter().zip(out) {
                values[i] = value;
            }
        }
        Ok(values)
    }

    /// Whether the special party's value is `±` the product of the others'.
    fn check_round(ring: &Ring, values: &[Elem], special: usize) -> bool {
        let prod = values
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != special)
            .fold(ring.small(1), |acc, (_, v)| ring.mul(&acc, v));
        let v = ring.value(&values[special]);
        v == ring.value(&prod) || v == ring.value(&ring.sub(&ring.zero(), &prod))
    }

    /// The first biprimality round on every survivor of the batch.
    fn biprimality_round(
        &self,
        cands: &[Candidate],
        moduli: &[(BoxedUint, u32)],
        survivors: &[usize],
        rings: &[Ring],
    ) -> Result<Vec<bool>, Error> {
        let (n, me) = (self.setup.n, self.setup.me);
        let mut msg = Writer::default();
        let tests: Vec<_> = survivors
            .iter()
            .zip(rings)
            .map(|(&i, ring)| (&cands[i], &moduli[i].0, ring, 0))
            .collect();
        let mut mine = self.biprimality_values(&tests)?;
        for (v, ring) in mine.iter_mut().zip(rings) {
            declassify_monty(v); // broadcast
            msg.elem(ring, v);
        }
        let got = self
            .exchange(vec![Some(msg.finish()); n], |_| true, false)?
            .ok_or(Error::Aborted)?;
        let mut values: Vec<Vec<Elem>> = survivors.iter().map(|_| Vec::with_capacity(n)).collect();
        for (j, m) in got.iter().enumerate() {
            let mut r = (j != me).then(|| Reader::new(m, j));
            for (s, vals) in values.iter_mut().enumerate() {
                match &mut r {
                    None => vals.push(mine[s].clone()),
                    Some(r) => vals.push(r.elem(&rings[s], "biprimality value")?),
                }
            }
            if let Some(r) = r {
                r.end()?;
            }
        }
        Ok(survivors
            .iter()
            .zip(&values)
            .enumerate()
            .map(|(s, (&i, vals))| Self::check_round(&rings[s], vals, cands[i].special))
            .collect())
    }

    /// The rest of the test for a candidate that passed a first round: the
    /// `gcd(N, p + q − 1)` check, the other rounds, and the commit.
    fn finish(
        &mut self,
        c: &Candidate,
        modulus: &BoxedUint,
        phi_mod_e: u32,
        ring: &Ring,
    ) -> Result<Outcome, Error> {
        self.shared.full_tests.fetch_add(1, Ordering::Relaxed);
        let accepted =
            self.gcd_test(c, modulus, ring)? && self.remaining_rounds(c, modulus, ring)?;
        if !accepted {
            return Ok(Outcome::Rejected);
        }
        let setup = self.setup;
        // Party 1 commits the first biprime any lane offers.
        let commit = if self.leader() {
            let mut winner = self
                .shared
                .winner
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let commit = winner.is_none();
            if commit {
                *winner = Some(self.id);
                self.shared.stop.store(true, Ordering::SeqCst);
            }
            drop(winner);
            for j in 1..setup.n {
                self.shared
                    .transport
                    .send(j, self.channel, vec![if commit { 1 } else { 2 }])?;
            }
            commit
        } else {
            let m = self.shared.transport.recv(0, self.channel, setup.timeout)?;
            match m.as_slice() {
                [1] => true,
                [2] => false,
                _ => {
                    return Err(Error::Malformed {
                        party: 1,
                        what: "commit decision",
                    });
                }
            }
        };
        if !commit {
            return Ok(Outcome::Stop);
        }
        Ok(Outcome::Committed(Box::new(Found {
            n: modulus.clone(),
            p: c.p.clone(),
            q: c.q.clone(),
            special: c.special,
            phi_mod_e,
        })))
    }

    /// Boneh–Franklin's check that `gcd(N, p + q − 1) = 1`: BGW over `Z_N`
    /// reveals `z = r (p + q − 1) mod N` for a random shared `r`.
    fn gcd_test(&mut self, c: &Candidate, modulus: &BoxedUint, ring: &Ring) -> Result<bool, Error> {
        let setup = self.setup;
        let (n, t, me) = (setup.n, setup.t, setup.me);
        let r_i = Zeroizing::new(ring.random(&mut self.rng));
        let width = modulus.nlimbs();
        let mut s = c.p.resize(width)?.wrapping_add(&c.q.resize(width)?);
        if c.special == me {
            s = s.wrapping_sub(&BoxedUint::from_u64(1, width));
        }
        let s_i = Zeroizing::new(ring.elem(&s));
        s.zeroize();
        let sr = ring.share(&r_i, t, &mut self.rng);
        let ss = ring.share(&s_i, t, &mut self.rng);
        let sz = ring.share(&ring.zero(), 2 * t, &mut self.rng);
        let mut out: Vec<Writer> = (0..n).map(|_| Writer::default()).collect();
        for (j, w) in out.iter_mut().enumerate() {
            if j != me {
                w.elem(ring, &sr[j]);
                w.elem(ring, &ss[j]);
                w.elem(ring, &sz[j]);
            }
        }
        let got = self
            .exchange(to_outgoing(out, me), |_| true, false)?
            .ok_or(Error::Aborted)?;
        let (mut rr, mut ssum, mut zz) = (sr[me].clone(), ss[me].clone(), sz[me].clone());
        for (j, m) in got.iter().enumerate() {
            if j == me {
                continue;
            }
            let mut rd = Reader::new(m, j);
            rr = ring.add(&rr, &rd.elem(ring, "gcd share")?);
            ssum = ring.add(&ssum, &rd.elem(ring, "gcd share")?);
            zz = ring.add(&zz, &rd.elem(ring, "gcd share")?);
            rd.end()?;
        }
        let mut share_z = ring.add(&ring.mul(&rr, &ssum), &zz);
        declassify_monty(&mut share_z); // broadcast
        rr.zeroize();
        ssum.zeroize();
        let mut w = Writer::default();
        w.elem(ring, &share_z);
        let got = self
            .exchange(vec![Some(w.finish()); n], |_| true, false)?
            .ok_or(Error::Aborted)?;
        let mut shares = Vec::with_capacity(n);
        for (j, m) in got.iter().enumerate() {
            if j == me {
                shares.push(share_z.clone());
                continue;
            }
            let mut rd = Reader::new(m, j);
            shares.push(rd.elem(ring, "gcd product share")?);
            rd.end()?;
        }
        let interp = Interpolator::new(ring, n, 2 * t)?;
        let z = ring.value(&interp.interpolate(ring, &shares, "gcd test")?);
        let g = z.gcd_vartime(modulus);
        Ok(!bool::from(z.is_zero()) && g.bits_vartime() == 1)
    }

    /// Biprimality rounds 2 to 128, all in one message.
    fn remaining_rounds(
        &self,
        c: &Candidate,
        modulus: &BoxedUint,
        ring: &Ring,
    ) -> Result<bool, Error> {
        let (n, me) = (self.setup.n, self.setup.me);
        let rounds = BIPRIMALITY_ROUNDS - 1;
        let mut msg = Writer::default();
        let tests: Vec<_> = (1..=rounds)
            .map(|round| (c, modulus, ring, round))
            .collect();
        let mut mine = self.biprimality_values(&tests)?;
        for v in &mut mine {
            declassify_monty(v); // broadcast
            msg.elem(ring, v);
        }
        let got = self
            .exchange(vec![Some(msg.finish()); n], |_| true, false)?
            .ok_or(Error::Aborted)?;
        let mut all: Vec<Vec<Elem>> = (0..rounds).map(|_| Vec::with_capacity(n)).collect();
        for (j, m) in got.iter().enumerate() {
            let mut r = (j != me).then(|| Reader::new(m, j));
            for (k, vals) in all.iter_mut().enumerate() {
                match &mut r {
                    None => vals.push(mine[k].clone()),
                    Some(r) => vals.push(r.elem(ring, "biprimality value")?),
                }
            }
            if let Some(r) = r {
                r.end()?;
            }
        }
        Ok(all
            .iter()
            .all(|vals| Self::check_round(ring, vals, c.special)))
    }
}

/// A bound on the bytes of any message a lane sends, for a key of `bits`
/// bits and `batch` candidates per round trip (run identifier and batch
/// flag included): what a peer may have queued for a lane, at most two
/// rounds ahead, sizes the transport's allowance
/// ([`MAX_QUEUED`](crate::transport::MAX_QUEUED); a test checks the two).
#[cfg(test)]
pub(crate) fn largest_message(bits: u32, batch: usize) -> usize {
    let field = (bits + 1).div_ceil(8) as usize; // F_P, P just above 2^bits
    let modulus = bits.div_ceil(8) as usize; // Z_N
    let sieve = (bits / 2).div_ceil(8) as usize; // Z_M, M below 2^(bits/2)
    let largest = [
        // Sieving: a share of each of the batch's 2·batch units.
        2 * batch * sieve,
        // N: shares of p_i, q_i and zero, and a piece of φ_i mod e, each.
        batch * (3 * field + 4),
        // The first biprimality round, on at most the whole batch.
        batch * modulus,
        // The other rounds of one candidate, and its gcd test.
        (super::BIPRIMALITY_ROUNDS - 1) * modulus,
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    largest + 1 + super::run::TAG_BYTES
}

/// Whether `φ(N)`, known modulo `e` (public by design), is prime to `e`,
/// so that `d = e^-1 mod φ(N)` exists: `gcd(φ mod e, e) = 1`. For a prime
/// `e` that is `φ ≢ 0`; for a composite one (`e = 25`) `φ ≡ 5` fails too,
/// which the generation once let through, to fail at the end.
pub(crate) fn phi_fits(phi_mod_e: u32, e: u32) -> bool {
    let (mut a, mut b) = (phi_mod_e, e);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a == 1
}

/// Writers to per-party messages (our own slot `None`).
fn to_outgoing(out: Vec<Writer>, me: usize) -> Outgoing {
    out.into_iter()
        .enumerate()
        .map(|(j, w)| (j != me).then(|| w.finish()))
        .collect()
}

/// Zeroizes our own BGW shares of a batch.
fn wipe_own(own: &mut [(Elem, Elem, Elem, u32)]) {
    for (a, b, c, d) in own {
        a.zeroize();
        b.zeroize();
        c.zeroize();
        d.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::phi_fits;

    #[test]
    fn phi_must_be_prime_to_a_composite_e() {
        assert!(!phi_fits(0, 65537) && phi_fits(1, 65537) && phi_fits(65536, 65537));
        for phi in 0..25 {
            assert_eq!(phi_fits(phi, 25), phi % 5 != 0, "φ ≡ {phi} (mod 25)");
        }
    }
}
