"""Calibrated synthetic releases that follow the contract.

A synthetic release reproduces the paper's headline metrics on the default configuration.
It comes from a small latent model:

- each ranked model sits at a quantile u in [0, 1] of a fixed ability profile (piecewise
  linear in logit space through the worst, median and best model), plus a little noise
  per (model, dimension); de-escalation and safety-disclaimer habits have their own
  profiles, the other dimensions share a general one plus a per-dimension offset;
- a criterion is met with probability sigmoid(ability[model, dimension] + cell effect
  - task difficulty - criterion difficulty - multi-turn penalty);
- routing is gated per (model, task): a reply either routes (then most routing criteria
  are met) or not at all; recognising the crisis raises the chance of routing but often
  does not lead to it;
- the judge samples scatter around that verdict (the majority always equals it); the
  clinicians' truth disagrees with the verdict on a few percent of pairs and each
  annotator adds noise of their own.

The profile constants were tuned offline on the default seed; nothing is searched at
generation time. Same config, same bytes.

Modules: config (what to generate), latent (the model's parameters), simulate (abilities,
task shapes, verdicts), ids (identifiers), phrase_pools (the wording: lines, criteria and
reply phrases, with the subcategories' profiles), text_assembly (replies and turns put
together from those pools), tables and chunk_tables (the release's tables), labels (judge
and clinician labels), generate (writing a release, and the default one).
"""
