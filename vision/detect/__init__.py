"""Find where cards may be: the recogniser's proposal stages, in the order they run.

1. `prepare`: grey and "paper" images, edges, and the masks of where cards may be.
2. `outlines`: whole-card outlines fitted to the masks' blobs and to the traced edges.
3. `corners`: lone card corners of blobs, and where two straight edges meet, for cards whose
   outline is lost.
4. `glyphs`: ink blobs on paper that could be an index's rank or suit.
5. `index_pairs`: index corners placed from rank-above-suit glyph pairs and joined indices.

Each stage keeps its thresholds in one frozen dataclass (`PREPARE`, `OUTLINES`, `CORNERS`,
`GLYPHS`, `PAIRS`), each field with the reason for its value. Every stage hands the classifier
`Proposal`s that name their `Stage`, so a false card can be traced to what proposed it. All of
these are only proposals; the classifier decides which show an index.
"""

from vision.detect.corners import (
    CORNERS,
    CornerFrame,
    CornerThresholds,
    corner_frames,
    corner_homographies,
    corner_proposals,
    frame_homography,
    merge_widths,
    outline_polygon,
    segment_corner_homographies,
    segment_proposals,
    squared_homographies,
    squared_proposals,
    width_guesses,
)
from vision.detect.glyphs import GLYPHS, Glyphs, GlyphThresholds, find_glyphs, glyph_sets
from vision.detect.index_pairs import (
    EDGE_BANDS,
    PAIRS,
    EdgeOrientation,
    IndexPairThresholds,
    edge_orientation,
    glyph_homographies,
    glyph_proposals,
    joined_index_homographies,
    pair_homographies,
)
from vision.detect.outlines import (
    OUTLINES,
    Blob,
    OutlineThresholds,
    broken_outline_blobs,
    edge_loop_blobs,
    find_blobs,
    fit_quad,
    mask_blobs,
    outline_proposals,
    paper_outlines,
    unique_quads,
)
from vision.detect.prepare import (
    PREPARE,
    Prepared,
    PrepareThresholds,
    ShadowLift,
    card_masks,
    lift_shadow,
    paper_and_notches,
    paper_regions,
    prepare,
)
from vision.detect.proposal import (
    Part,
    Proposal,
    Share,
    Stage,
    Stopped,
    card_corners_from_frame,
    lone_proposals,
    stop_if,
)

__all__ = [
    "CORNERS",
    "EDGE_BANDS",
    "GLYPHS",
    "OUTLINES",
    "PAIRS",
    "PREPARE",
    "Blob",
    "CornerFrame",
    "CornerThresholds",
    "EdgeOrientation",
    "GlyphThresholds",
    "Glyphs",
    "IndexPairThresholds",
    "OutlineThresholds",
    "PrepareThresholds",
    "Prepared",
    "Part",
    "Proposal",
    "ShadowLift",
    "Share",
    "Stage",
    "Stopped",
    "broken_outline_blobs",
    "card_corners_from_frame",
    "card_masks",
    "corner_frames",
    "corner_homographies",
    "corner_proposals",
    "edge_orientation",
    "edge_loop_blobs",
    "find_blobs",
    "find_glyphs",
    "fit_quad",
    "frame_homography",
    "glyph_homographies",
    "glyph_proposals",
    "glyph_sets",
    "joined_index_homographies",
    "lift_shadow",
    "lone_proposals",
    "mask_blobs",
    "merge_widths",
    "outline_polygon",
    "outline_proposals",
    "pair_homographies",
    "paper_outlines",
    "paper_and_notches",
    "paper_regions",
    "prepare",
    "segment_corner_homographies",
    "segment_proposals",
    "squared_homographies",
    "squared_proposals",
    "stop_if",
    "unique_quads",
    "width_guesses",
]
