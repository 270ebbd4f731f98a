/**
 * The hazard table: agency wording (English, Spanish, French) for each canonical category, in order of
 * precedence, and the overrides decided before it. Data only; `hazard-rules.ts` matches a text against it.
 */
import type { HazardCategory } from './taxonomy.ts';

/** One row of the hazard table: the category and the wordings that name it. */
export interface HazardRule {
  category: HazardCategory;
  patterns: readonly RegExp[];
}

/** Allergens named in recall notices (US major allergens, EU/Canada priority allergens, sulfites). */
export const ALLERGEN = String.raw`(?:milk|dairy|lactose|casein(?:ate)?s?|whey|cheese|yogh?urt|colostrum|eggs?|peanuts?|tree[- ]?nuts?|nuts?|almonds?|walnuts?|cashews?|pecans?|hazelnuts?|pistachios?|macadamias?|brazil[- ]nuts?|pine[- ]nuts?|coconuts?|soy(?:a|beans?)?|(?:soy[- ])?lecithin|wheat|gluten|fish|anchov(?:y|ies)|shellfish|crustaceans?|shrimps?|prawns?|crabs?|lobsters?|crayfish|molluscs?|mollusks?|clams?|oysters?|mussels?|scallops?|squid|sesame|sulfites?|sulphites?|sulfur dioxide|sulphur dioxide|(?:meta)?bisulfites?|mustard|celery|lupine?|(?:fd&c )?yellow (?:no\.?|#)? ?5|tartrazine)`;

/** The EU's declarable allergens as French notices name them (RappelConso, lower-case). */
const ALLERGEN_FR = String.raw`(?:lait|lactose|(?:œ|oe)ufs?|arachides?|cacahu[èe]tes?|fruits? à coques?|noix|amandes?|noisettes?|pistaches?|soja|bl[ée]|gluten|poissons?|crustac[ée]s|mollusques?|s[ée]same|sulfites?|anhydride sulfureux|moutarde|c[ée]leri|lupin)`;

/** A French word boundary: no letter before or after (accented letters are letters). */
const FR = (body: string): RegExp => new RegExp(String.raw`(?<!\p{L})(?:${body})(?!\p{L})`, 'iu');

/** Active pharmaceutical ingredients found hidden in "supplements", plus the generic wording. */
const HIDDEN_DRUG = String.raw`(?:\w+afil|sibutramine|phenolphthalein|desmethylsibutramine|fluoxetine|dexamethasone|diclofenac|ibuprofen|steroids?|drugs?|active (?:pharmaceutical )?ingredients?)`;

/** The order of this table is the precedence. */
export const HAZARD_RULES: readonly HazardRule[] = [
  {
    category: 'undeclared_allergen',
    patterns: [
      /\ballergens?\b(?! extracts?)/i,
      new RegExp(
        String.raw`\b(?:undeclared|undisclosed|unlabell?ed|not declared|not listed)\b[^.;]{0,60}?\b${ALLERGEN}\b`,
        'i',
      ),
      new RegExp(
        String.raw`\b${ALLERGEN}\b[^.;]{0,80}?\b(?:not|isn't|aren't)\s+(?:declared|listed|labell?ed|identified|disclosed)\b`,
        'i',
      ),
      new RegExp(String.raw`\btraces? of ${ALLERGEN}\b`, 'i'),
      new RegExp(String.raw`\b${ALLERGEN}[- ]free\b[^.;]{0,60}\bcontains?\b`, 'i'),
      /\bcross[- ]contact\b/i,
      // French (RappelConso): "substances allergisantes non déclarées", "sulfites, non mentionnée".
      FR(String.raw`allerg[èe]nes?|allergisante?s?`),
      new RegExp(
        String.raw`(?<!\p{L})${ALLERGEN_FR}(?!\p{L})[^.;]{0,80}?(?<!\p{L})non (?:mentionn|d[ée]clar|indiqu|signal)`,
        'iu',
      ),
      new RegExp(String.raw`(?<!\p{L})traces? d(?:e |['’])${ALLERGEN_FR}(?!\p{L})`, 'iu'),
    ],
  },
  {
    category: 'microbial_contamination',
    patterns: [
      /\blisteria\b/i,
      /\bsalmonell/i,
      /\be\.?\s?coli\b/i,
      /\bescherichia\b/i,
      /\bSTEC\b/,
      /\bO157\b/i,
      /\bclostridium\b/i,
      /\bbotulin/i,
      /\bbotulism\b/i,
      /\bcronobacter\b/i,
      /\bstaphylococc/i,
      /\bbacillus\b/i,
      /\bvibrio\b/i,
      /\bcampylobacter\b/i,
      /\bshigella\b/i,
      /\bpseudomonas\b/i,
      /\bburkholderia\b/i,
      /\bhepatitis a\b/i,
      /\bnorovirus\b/i,
      /\bcyclospora\b/i,
      /\bbacteri(?:a|al|um)\b/i,
      /\bmicrob(?:e|es|ial|ially|iological)\b/i,
      /\bpathogen(?:s|ic)?\b/i,
      /\bmou?ld(?:s|y)?\b(?!\s+(?:release|cavity|cavities|line|flash|parting))/i,
      /\byeasts?\b/i,
      /\bfung(?:al|us|i)\b/i,
      /\b(?:afla|myco)toxins?\b/i,
      /\bsteril(?:e|ity)\b/i,
      /\bnon-?\s?sterile\b/i,
      /\bunsterile\b/i,
      /\b(?:insanitary|unsanitary)\b/i,
      /\bunder-?process/i,
      /\bspoil(?:age|ed)\b/i,
      /\b(?:swollen|bloated|swelling)\s+(?:cans?|containers?|packages?|pouch(?:es)?|lids?)\b/i,
      /\b(?:TAMC|TYMC)\b/,
      // French: listéria, salmonelle(s), microbiologique, moisissures, mould toxins (T-2/HT-2, zéaralénone…).
      FR(String.raw`list[ée]ri\p{L}*|staphylocoq\p{L}*|botuli\p{L}*|h[ée]patite a|levures?|moisissures?`),
      FR(String.raw`(?:micro)?bact[ée]rio\p{L}*|microbiologi\p{L}*|germes? pathog[èe]nes?`),
      FR(
        String.raw`(?:myco|afla|ochra)toxines?|h?t-?2 ?toxines?|toxines? h?t-?2|z[ée]aral[ée]none|patuline|d[ée]?oxynival[ée]nol`,
      ),
    ],
  },
  {
    category: 'foreign_matter',
    patterns: [
      /\bforeign\s+(?:material|matter|object|substance|bod(?:y|ies)|particles?)/i,
      /\bextraneous\s+(?:material|matter)/i,
      /\b(?:metal|metallic|glass|plastic|wood(?:en)?|rubber|stone|rock|bone|hard)\s+(?:fragments?|pieces?|particles?|particulates?|shavings?|filings?|shards?|chips?|splinters?|debris|wire)\b/i,
      /\b(?:pieces?|fragments?|bits?|shards?) of (?:\w+ )?(?:metal|glass|plastic|wood|rubber|bone|stone)\b/i,
      /\b(?:presence of|may contain|contaminated with)\s+(?:\w+\s+){0,2}?(?:glass|metal|plastic|rubber|stones?|bones?)\b/i,
      /\bmateri(?:a|al)(?:es)? extra[ñn]/i,
      /\bcuerpos? extra[ñn]os?\b/i,
      /\bparticulates?\b/i,
      /\bfilth\b/i,
      /\b(?:insects?|rodents?)\b/i,
      /\bshards?\b/i,
      // French: "corps étranger", "morceau de verre", "inertes (verre, métal, plastique…)".
      FR(String.raw`corps [ée]trangers?|inertes? \(`),
      FR(
        String.raw`(?:morceaux?|fragments?|[ée]clats?|particules?|copeaux?) (?:\p{L}+ )?d(?:e |['’])(?:verre|m[ée]tal|plastique|bois|caoutchouc|pierres?|os|cailloux?)`,
      ),
    ],
  },
  {
    category: 'chemical',
    patterns: [
      /(?<!blood )\bpoison/i,
      /\b(?:skin|eye|respiratory)\b[\w ,]{0,30}\birritation\b/i,
      /\btoxic\b/i,
      /\blead\s+(?:paint|content|levels?|poisoning)\b/i,
      /\b(?:levels? of|excess(?:ive)?|contains?|containing|elevated)\s+lead\b/i,
      /\b(?:cadmium|arsenic|mercury|phthalates?|benzene|methanol|formaldehyde|asbestos|ethylene oxide|carbon monoxide|histamine|scombro\w*)\b/i,
      /\b(?:NDMA|NDEA|NMBA|NDIPA|NEIPA)\b/,
      /\bnitrosamines?\b/i,
      /\bN-?nitroso/i,
      /\bchemical\s+(?:contamination|burns?|hazard|exposure)/i,
      /\bcontaminated with (?:a )?chemical/i,
      new RegExp(String.raw`\b(?:undeclared|hidden)\b[^.;]{0,40}?\b${HIDDEN_DRUG}\b`, 'i'),
      /\belevated levels? of\b/i,
      /\bexcess(?:ive)? (?:levels? of )?(?:vitamin|iron|selenium|iodine|caffeine|fluoride)/i,
      /\bchild[- ]resistant\b/i,
      /\bPoison Prevention Packaging\b/i,
      /\bnon-?\s?food[- ]grade\b/i,
      /\bmineral (?:seal )?oil\b/i,
      /\bsodium nitrite\b/i,
      /\b(?:exceed\w*|in excess of|above|over)\s+(?:the\s+)?(?:regulatory|permitted|allowable|legal|maximum|federal)\s+limits?\b/i,
      /\b(?:cleaning|sanitizing|sanitising) (?:solution|agent|chemical|compound)s?\b/i,
      /\b(?:sodium )?hypochlorite\b|\bhipoclorito\b/i,
      /\bsoluci[oó]n limpiadora\b/i,
      /\b(?:unapproved|non-?approved) (?:substance|ingredient|additive|chemical)s?\b|\bsustancias? no aprobadas?\b/i,
      // French: "risque chimique", "contaminants chimiques", "intoxication", "toxicité", pesticides.
      FR(
        String.raw`(?:risques?|contaminants?|contaminations?) chimiques?|intoxications?|toxicit[ée]|toxiques?`,
      ),
      FR(
        String.raw`benz[èe]ne|plomb|mercure|phtalates?|formald[ée]hyde|chrome vi|acide cyanhydrique|oxyde d['’][ée]thyl[èe]ne`,
      ),
      FR(String.raw`pesticides?|phytosanitaires?|substances? (?:non autoris[ée]e?s?|interdites?)`),
    ],
  },
  {
    category: 'fire',
    patterns: [
      /\bfires?\b/i,
      /\bflames?\b/i,
      /\bflammab/i,
      /\bignit(?:e|es|ed|ing)\b/i,
      /\bignition source/i,
      /\bexplo(?:de|des|ded|ding|sion|sions|sive)\b/i,
      /\boverheat/i,
      /\bcombust/i,
      /\bsmou?lder/i,
      /\bthermal runaway\b/i,
      /\bshort[- ]circuit/i,
      FR(String.raw`incendies?|inflammabl\p{L}*|s['’]enflamm\p{L}*|surchauff\p{L}*|courts?-circuits?`),
    ],
  },
  {
    category: 'electrical_shock',
    patterns: [
      /\belectric(?:al)?\s+shock/i,
      /\belectrocut/i,
      /\bshock (?:hazard|risk)/i,
      /\brisk of (?:electric(?:al)? )?shock/i,
      /\bshock (?:and|or) (?:fire|burn|electrocution)/i,
      /\b(?:fire|burn)s?,? (?:and|or) (?:electric(?:al)? )?shock/i,
      FR(String.raw`chocs? [ée]lectriques?|[ée]lectrocution|[ée]lectrisation`),
    ],
  },
  {
    category: 'burn',
    patterns: [
      /\bburns?\b/i,
      /\bscald/i,
      /\bthermal injur/i,
      /\bhot (?:surfaces?|water|liquids?|oil|steam)\b/i,
      FR(String.raw`br[ûu]lures?`),
    ],
  },
  { category: 'drowning', patterns: [/\bdrown/i, /\bsubmersion\b/i, FR('noyades?')] },
  { category: 'suffocation', patterns: [/\bsuffocat/i, /\basphyx/i, /\bsmother/i] },
  { category: 'strangulation', patterns: [/\bstrangl/i, /\bstrangul/i, /\bentangl/i, FR('[ée]tranglement')] },
  {
    category: 'choking',
    patterns: [
      /\bchok(?:e|es|ed|ing)\b/i,
      /\bsmall parts?\b/i,
      /\bingest(?:ion|ed)?\b/i,
      /\bswallow/i,
      /\baspirat/i,
      // French: "étouffement" (RappelConso's word for choking on small parts), "petits éléments", "ingérés".
      FR(
        String.raw`[ée]touffements?|petits? (?:[ée]l[ée]ments|pi[èe]ces)|ing[ée]r[ée]e?s?|aval[ée]e?s?|avaler`,
      ),
    ],
  },
  {
    category: 'entrapment',
    patterns: [/\bentrap/i, /\btrapped\b/i, FR(String.raw`empêch\p{L}* (?:\p{L}+ ){0,3}de sortir`)],
  },
  {
    category: 'fall',
    patterns: [
      /\bfalls? hazard/i,
      /\bfalls?(?:,| and| or)[^.;]{0,60}?\bhazards?\b/i,
      /\b(?:risk|hazard) of (?:a )?falls?\b/i,
      /\b(?:can|could|may|might|to|will)\s+fall\b(?!\s+(?:outside|out of|below|above|within|short|under))/i,
      /\bfalling\b(?!\s+(?:outside|out of|below|above|within|short|under))/i,
      /\btip(?:s|ping)? over while in use\b/i,
      // ACCC: "Risk of serious injury to a child from a fall if the seat breaks".
      /\bfrom (?:a )?falls?\b/i,
      FR(String.raw`(?:risques? )?de chutes?|chutes? de l['’]utilisateur`),
    ],
  },
  {
    category: 'vehicle_crash',
    patterns: [
      /\b(?:risk|hazard|chance) of (?:a )?(?:crash|collision)/i,
      /\bcrash (?:hazard|risk)/i,
      /\bcrash(?:es)?(?:,| and| or)[^.;]{0,60}?\bhazards?\b/i,
      /\b(?:in|during|cause|causing|result in) a (?:crash|collision)/i,
      // ACCC: "… if the brake calliper fails and causes an accident", "… from an accident".
      /\b(?:from|in|during|causes?|causing|result(?:s|ing)? in) an accident\b/i,
      /\bvehicle crash/i,
      /\bloss of (?:vehicle |steering |motive |drive |braking )?(?:control|power|steering|propulsion|braking)\b/i,
      /\blose control\b/i,
      /\bair ?bags?\b/i,
      /\bbrak(?:e|es|ing)\s+(?:failure|fluid|hoses?|lines?|call?ipers?|pedal|booster|assist|system|performance|ability|distance)/i,
      /\breduced braking\b/i,
      /\bincreas\w* (?:the )?stopping distance/i,
      /\bsteering\s+(?:control|failure|gear|column|wheel|assist|rack|linkage)/i,
      /\bseat ?belts?\b/i,
      /\broll ?away\b/i,
      /\b(?:reduc\w*|limit\w*)[^.;]{0,30}\bvisibility\b/i,
      /\brear ?view (?:camera|image)/i,
      // French: "risque d'accident", "perte de contrôle", "freinage", "ceinture de sécurité".
      FR(
        String.raw`d['’]accidents?|perte de contr[ôo]le|freinage|(?:fonction|syst[èe]me|colonne|boîtier) de direction|ceintures? de s[ée]curit[ée]`,
      ),
    ],
  },
  {
    category: 'injury',
    patterns: [
      /\bimpact (?:hazard|injur)/i,
      /\bfrom impact\b/i,
      /\bimpact (?:to|with)\b/i,
      /\b(?:fragments?|parts?|pieces?|debris)\b[^.;]{0,40}\beject/i,
      /\bforcefully eject/i,
      /\bcrush/i,
      /\bpinch/i,
      /\bamputat/i,
      /\bprojectile/i,
      /\btip[- ]?over\b/i,
      /\bstruck\b/i,
      /\bcollaps(?:e|es|ed|ing)\b/i,
      FR('écrasements?|pincements?'),
    ],
  },
  {
    category: 'laceration',
    patterns: [
      /\blacerat/i,
      /\bcut (?:hazard|risk)/i,
      /\b(?:risk|hazard) of cuts?\b/i,
      // ACCC: "Risk of injury from cuts or scratches".
      /\bfrom cuts?\b/i,
      /\bcuts? (?:or|and) scratch/i,
      /\bpunctur/i,
      /\bsharp (?:edges?|points?)\b/i,
      /\bneedle[- ]?sticks?\b/i,
      /\bexposed needle/i,
      /\bneedle tip\b[^.;]{0,40}\bexposed\b/i,
      FR(String.raw`coupures?|lac[ée]rations?|bords? (?:tranchants?|coupants?)`),
    ],
  },
  // "Injury hazard" with no mechanism named: after every named harm ("laceration and injury hazards").
  { category: 'injury', patterns: [/\binjury hazard/i, /\b(?:head|physical|bodily) injur/i] },
  {
    category: 'mislabelling',
    patterns: [
      /\bmis-?label/i,
      /\bmis-?brand/i,
      /\bmis-?pack/i,
      /^\s*label(?:l)?ing\s*:/i,
      /\blabel(?:l)?ing (?:errors?|mix-?ups?|issues?|deficienc)/i,
      /\blabel mix-?ups?\b/i,
      /\bmix-?ups?\b/i,
      /\bincorrectly (?:label|packag|print)/i,
      /\b(?:wrong|incorrect|inaccurate|erroneous|missing)\b[^.;]{0,40}?\b(?:labels?|labell?ing|labell?ed|lot|expir\w*|exp|dates?|strength|name|information|inserts?|instructions|warnings?)\b/i,
      /\b(?:wrong|incorrect)\b[^.;]{0,60}?\bpackaged\b/i,
      /\bpackaged (?:in|with|into) (?:the |a )?(?:wrong|incorrect)\b/i,
      /\bextended (?:sell|use|best)[- ]by\b/i,
      /\bextended (?:expiration|expiry|shelf)/i,
      /\bforeign (?:tablets?|capsules?|pills?)\b/i,
      /\bmay contain (?:units|tablets|capsules|bottles|packages|vials|cartons|cans|pouches) of\b/i,
      // French: "anomalie d'étiquetage", "étiquetage de danger non conforme", "erreur de date dlc".
      FR(
        String.raw`(?:erreurs?|d[ée]fauts?|anomalies?) d['’][ée]tiquetage|[ée]tiquetage (?:\p{L}+ ){0,3}non conformes?`,
      ),
      FR(String.raw`erreurs? de (?:date|dlc|ddm|dluo)`),
    ],
  },
  {
    category: 'quality_defect',
    patterns: [
      /\bsub-?potent/i,
      /\bsuper-?potent/i,
      /\bpotency\b/i,
      /\bdissolution\b/i,
      /\bstability\b/i,
      /\bspecifications?\b/i,
      /\bout of spec/i,
      /\bOOS\b/,
      /\bc?GMP\b/i,
      /\bgood manufacturing practice/i,
      /\bquality system/i,
      /\bmalfunction/i,
      /\bdefect(?:s|ive)?\b/i,
      /\bfail(?:s|ed|ing|ures?)?\b/i,
      /\bcrack(?:s|ed|ing)?\b/i,
      /\bfractur/i,
      /\bbreak(?:s|age|ing)?\b/i,
      /\bbroken\b/i,
      /\bleak(?:s|ed|ing|age)?\b/i,
      /\bdegrad/i,
      /\bimpurit/i,
      /\bcontent uniformity\b/i,
      /\bcrystalli[sz]/i,
      /\bprecipitat/i,
      /\bdiscolou?r/i,
      /\b(?:over|under)sized\b/i,
      /\bunexpected (?:movement|behaviou?r|shutdown|operation|reboot|restart)/i,
      /\bsoftware\b/i,
      /\berrors?\b/i,
      /\binaccurate\b/i,
      /\bfalse (?:positive|negative)/i,
      /\bcalibrat/i,
      /\bnot (?:the )?specified\b/i,
      /\b(?:does|do|may|might|did) not (?:meet|conform)/i,
      /\bnon-?conform/i,
      /\bdeviations?\b/i,
      /\btemperature (?:abuse|excursion)/i,
      /\bseparat(?:e|es|ed|ion)\b/i,
      /\bdetach/i,
      /\bcorro(?:de|des|ded|sion)\b/i,
      /\bunder-?fill/i,
      /\bshort[- ]fill/i,
      // French: "défaut de fabrication", "perte d'étanchéité", "non conforme", "rupture de la chaîne du froid".
      FR(
        String.raw`d[ée]fauts? de fabrication|d[ée]fectueu\p{L}*|(?:perte|d[ée]faut)s? d['’][ée]tanch[ée]it[ée]|fuites?`,
      ),
      FR(
        String.raw`non[- ]conform\p{L}*|fissures?|ruptures?|d[ée]faillances?|cha[îi]ne du froid|alt[ée]ration|d[ée]gradation`,
      ),
    ],
  },
];

/** Decided first: a failed flammability standard is fire; a swallowed coin battery ingestion, not burn. */
export const OVERRIDES: readonly { category: HazardCategory; pattern: RegExp }[] = [
  { category: 'fire', pattern: /\bflammab\w*\s+(?:standards?|requirements?|regulations?|rules?)\b/i },
  {
    category: 'choking',
    pattern:
      /\b(?:button|coin)(?:[- ]cell)?(?: or (?:button|coin)(?:[- ]cell)?)? batter(?:y|ies)\b[^.]{0,120}\b(?:swallow|ingest)/i,
  },
];
